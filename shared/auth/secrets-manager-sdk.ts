/**
 * The Secrets Manager client the signing secret is read with (signing-secret.ts), in one module
 * so that a deployed function carries it in a companion file beside its bundle, loaded by the
 * first read of the secret: a warm function reads it once in five minutes, and the token check of
 * a function that starts does not wait for the client's code before it needs it.
 */
export { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
