import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';

const MIN_SECRET_BYTES = 32;
/** How long a warm function keeps the deployed secret before reading it again (rotation). */
const SECRET_MAX_AGE_SECONDS = 300;
let cached: Promise<Uint8Array> | undefined;

/**
 * The HS256 signing key (at least 256 random bits, base64url). Deployed, it is the Secrets
 * Manager secret named by `SIGNING_SECRET_ARN`, read through Powertools Parameters and cached for
 * a few minutes; locally it lives in the file named by `SIGNING_SECRET_FILE`, read once per process.
 */
export function signingKey(): Promise<Uint8Array> {
  const secretArn = process.env.SIGNING_SECRET_ARN;
  if (secretArn) return secretKey(secretArn);
  cached ??= fileKey().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function secretKey(secretArn: string): Promise<Uint8Array> {
  const secret = await getSecret(secretArn, { maxAge: SECRET_MAX_AGE_SECONDS });
  if (typeof secret !== 'string') throw new Error('The signing secret must be a string secret');
  return decodeSecret(secret.trim());
}

async function fileKey(): Promise<Uint8Array> {
  const file = process.env.SIGNING_SECRET_FILE;
  if (!file) throw new Error('No signing secret is configured (SIGNING_SECRET_ARN or SIGNING_SECRET_FILE)');
  return decodeSecret((await readFile(file, 'utf8')).trim());
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
  }
}
