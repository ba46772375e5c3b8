import { config, DEFAULT_SIGNING_SECRET_GRACE_SECONDS } from '#shared/config.ts';
import { setting } from '#shared/environment.ts';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { companionModule } from '#shared/companion.ts';

const MIN_SECRET_BYTES = 32;
/** How long a warm function keeps the deployed secret before reading it again (rotation). */
const SECRET_MAX_AGE_SECONDS = 300;
export const DEFAULT_GRACE_SECONDS = DEFAULT_SIGNING_SECRET_GRACE_SECONDS;

/**
 * The token signing keys: the current one signs and verifies; the one it replaced still verifies
 * for `SIGNING_SECRET_GRACE_SECONDS` after its retirement, so a rotation logs nobody out.
 *
 * - Deployed (`SIGNING_SECRET_ARN`): the Secrets Manager secret's `AWSCURRENT` version is the
 *   current key, and the creation time of that version is when the previous key was retired; the
 *   `AWSPREVIOUS` version is the previous key. Both are cached for five minutes; the previous one
 *   is read only when a token fails with the current key within the grace period.
 * - Locally (`SIGNING_SECRET_FILE`): line 1 holds the current secret; an optional line 2 holds the
 *   previous secret and, after a space, the ISO 8601 time it was retired
 *   (`npm run admin -- rotate-signing-secret` writes it). The file is read again when it changes.
 *
 * Secrets are at least 256 bits, base64url. No error message ever contains a secret.
 */
export interface SigningKeys {
  readonly current: Uint8Array;
  /** When the current key replaced the previous one (undefined when unknown or never rotated). */
  readonly rotatedAt?: Date;
  /** The previous key, when it is known without another read (the local file). */
  readonly previous?: Uint8Array;
}

/** The current key: it signs every new token. */
export async function signingKey(): Promise<Uint8Array> {
  return (await signingKeys()).current;
}

/** The previous key while its grace period lasts (`now` before rotation + grace); else undefined. */
export async function previousSigningKey(now = new Date()): Promise<Uint8Array | undefined> {
  const keys = await signingKeys();
  if (!keys.rotatedAt || now.getTime() >= keys.rotatedAt.getTime() + graceSeconds() * 1000) return undefined;
  const secretArn = setting('SIGNING_SECRET_ARN');
  return secretArn ? deployedPreviousKey(secretArn) : keys.previous;
}

/** `SIGNING_SECRET_GRACE_SECONDS`: how long the previous key keeps verifying; 0 ends it at rotation. */
export const graceSeconds = (): number => config('SIGNING_SECRET_GRACE_SECONDS');

function signingKeys(): Promise<SigningKeys> {
  const secretArn = setting('SIGNING_SECRET_ARN');
  if (secretArn) return deployedKeys(secretArn);
  const file = setting('SIGNING_SECRET_FILE');
  if (!file) throw new Error('No signing secret is configured (SIGNING_SECRET_ARN or SIGNING_SECRET_FILE)');
  return fileKeys(file);
}

// --- Deployed: Secrets Manager -------------------------------------------------------------

/**
 * The name of the Secrets Manager client's companion file beside a deployed bundle, set by
 * esbuild's `define` (infra/aws/service-function.ts bundles secrets-manager-sdk.ts into it);
 * unset when running from the sources.
 */
export const SECRETS_MANAGER_SDK_COMPANION_GLOBAL = 'AUTH_SECRETS_MANAGER_SDK_COMPANION';
declare const AUTH_SECRETS_MANAGER_SDK_COMPANION: string | undefined;

type SecretsManagerSdk = typeof import('./secrets-manager-sdk.ts');

/** The client's code, loaded by the first read of the secret (the module cache keeps it). */
const secretsManagerSdk = (): Promise<SecretsManagerSdk> =>
  typeof AUTH_SECRETS_MANAGER_SDK_COMPANION === 'string'
    ? companionModule<SecretsManagerSdk>(AUTH_SECRETS_MANAGER_SDK_COMPANION)
    : import('./secrets-manager-sdk.ts');

let client: SecretsManagerClient | undefined;
const deployed = new Map<string, { readAt: number; keys: Promise<SigningKeys> }>();
const deployedPrevious = new Map<string, { readAt: number; key: Promise<Uint8Array | undefined> }>();

function cachedFor<T extends { readAt: number }>(cache: Map<string, T>, arn: string, read: () => T): T {
  const entry = cache.get(arn);
  if (entry && Date.now() - entry.readAt < SECRET_MAX_AGE_SECONDS * 1000) return entry;
  const fresh = read();
  cache.set(arn, fresh);
  return fresh;
}

function deployedKeys(secretArn: string): Promise<SigningKeys> {
  return cachedFor(deployed, secretArn, () => {
    const keys = getVersion(secretArn, 'AWSCURRENT').then((version) => {
      if (!version) throw new Error('The signing secret has no current version');
      return { current: version.key, rotatedAt: version.createdAt };
    });
    keys.catch(() => deployed.delete(secretArn));
    return { readAt: Date.now(), keys };
  }).keys;
}

function deployedPreviousKey(secretArn: string): Promise<Uint8Array | undefined> {
  return cachedFor(deployedPrevious, secretArn, () => {
    const key = getVersion(secretArn, 'AWSPREVIOUS').then((version) => version?.key);
    key.catch(() => deployedPrevious.delete(secretArn));
    return { readAt: Date.now(), key };
  }).key;
}

async function getVersion(secretArn: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS') {
  const { GetSecretValueCommand, SecretsManagerClient } = await secretsManagerSdk();
  client ??= new SecretsManagerClient({});
  try {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: secretArn, VersionStage: stage }));
    if (typeof answer.SecretString !== 'string') throw new Error('The signing secret must be a string secret');
    return { key: decodeSecret(answer.SecretString.trim()), createdAt: answer.CreatedDate };
  } catch (error) {
    // A secret that was never rotated has no AWSPREVIOUS version.
    if (stage === 'AWSPREVIOUS' && (error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

/** Another string secret's current value (the LTI tool's keys, the grading records' keys), read with the same client. */
export async function currentSecretString(secretArn: string): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient } = await secretsManagerSdk();
  client ??= new SecretsManagerClient({});
  const answer = await client.send(new GetSecretValueCommand({ SecretId: secretArn, VersionStage: 'AWSCURRENT' }));
  if (typeof answer.SecretString !== 'string') throw new Error('The secret must be a string secret');
  return answer.SecretString;
}

// --- Local: the secret file -----------------------------------------------------------------

const local = new Map<string, { version: string; keys: Promise<SigningKeys> }>();

/**
 * The file's keys, read again whenever the file is replaced or changed (a rotation). Every token
 * check asks, so the file is looked at with a synchronous stat (microseconds on a local disk): the
 * promise version cost the local server about a tenth of its time under load.
 */
async function fileKeys(file: string): Promise<SigningKeys> {
  const info = statSync(file, { bigint: true });
  const version = `${info.ino}:${info.mtimeNs}:${info.size}`;
  const entry = local.get(file);
  if (entry?.version === version) return entry.keys;
  const keys = readFile(file, 'utf8').then(parseSecretFile);
  keys.catch(() => local.delete(file));
  local.set(file, { version, keys });
  return keys;
}

/** Line 1: the current secret; optional line 2: `<previous secret> <retired at, ISO 8601>`. */
export function parseSecretFile(text: string): SigningKeys {
  const [currentLine, previousLine, ...rest] = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (!currentLine || rest.length > 0) throw new Error('The signing secret file must hold one or two lines');
  const current = decodeSecret(currentLine);
  if (!previousLine) return { current };
  const [previous, retiredAt, ...extra] = previousLine.split(/\s+/);
  const rotatedAt = new Date(retiredAt ?? '');
  if (!previous || extra.length > 0 || Number.isNaN(rotatedAt.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(retiredAt ?? '')) {
    throw new Error('Line 2 of the signing secret file must be "<previous secret> <retired at, ISO 8601>"');
  }
  return { current, previous: decodeSecret(previous), rotatedAt };
}

export function decodeSecret(encoded: string): Uint8Array {
  const key = Buffer.from(encoded, 'base64url');
  if (key.length < MIN_SECRET_BYTES) {
    throw new Error(`The signing secret must hold at least ${MIN_SECRET_BYTES} bytes`);
  }
  return new Uint8Array(key);
}

export const generateSecret = (): string => randomBytes(MIN_SECRET_BYTES).toString('base64url');

/** Creates the local secret file once; an existing file is kept, so tokens survive restarts. */
export async function ensureSecretFile(path: string): Promise<void> {
  try {
    await writeFile(path, `${generateSecret()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A file made by hand or by an older version may be readable by others: it is the owner's alone.
    const { mode } = await stat(path);
    if ((mode & 0o077) !== 0) await chmod(path, mode & 0o600);
  }
}

/**
 * Rotates the local secret: a new current secret, and the old current one kept as the previous
 * (an older previous is dropped). Replaces the file atomically; a running local API notices.
 */
export async function rotateSecretFile(path: string, now = new Date()): Promise<{ rotatedAt: Date; graceEndsAt: Date }> {
  const [currentLine] = (await readFile(path, 'utf8'))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (!currentLine) throw new Error('The signing secret file is empty');
  decodeSecret(currentLine);
  const rotatedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${generateSecret()}\n${currentLine} ${rotatedAt.toISOString()}\n`, { flag: 'wx', mode: 0o600 });
  await rename(temporary, path);
  return { rotatedAt, graceEndsAt: new Date(rotatedAt.getTime() + graceSeconds() * 1000) };
}
