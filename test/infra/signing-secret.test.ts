import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSecret, signingKey } from '#shared/auth/signing-secret.ts';
import { secretsManagerEnvironment, startSecretsManager, type SecretsManagerStandIn } from '../support/secrets-manager.ts';

// A stand-in for Secrets Manager's GetSecretValue, to check how deployed functions read the key.
const SECRET = 'a'.repeat(20) + 'B7'.repeat(22); // 64 letters and digits, as the stack generates
const secrets: Record<string, string> = { 'arn:signing': SECRET, 'arn:short': 'tooShort' };
const requested: string[] = [];
let server: SecretsManagerStandIn;

beforeAll(async () => {
  server = await startSecretsManager((target, { SecretId }) => {
    requested.push(`${target} ${SecretId}`);
    return { json: { ARN: SecretId, Name: SecretId, SecretString: secrets[SecretId], VersionId: 'v1' } };
  });
  Object.assign(process.env, secretsManagerEnvironment(server.url));
});

afterAll(async () => {
  delete process.env.SIGNING_SECRET_ARN;
  await server.close();
});

describe('the signing key of a deployed function', () => {
  it('is the Secrets Manager secret named by SIGNING_SECRET_ARN, read once and cached', async () => {
    process.env.SIGNING_SECRET_ARN = 'arn:signing';
    const key = await signingKey();
    expect(key).toEqual(decodeSecret(SECRET));
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(await signingKey()).toEqual(key);
    expect(requested).toEqual(['secretsmanager.GetSecretValue arn:signing']);
  });

  it('must hold at least 256 bits', async () => {
    process.env.SIGNING_SECRET_ARN = 'arn:short';
    await expect(signingKey()).rejects.toThrow(/at least 32 bytes/);
  });
});
