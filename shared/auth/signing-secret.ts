import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

const MIN_SECRET_BYTES = 32;
let cached: Promise<Uint8Array> | undefined;

/**
 * The HS256 signing key (at least 256 random bits), read once per process.
 * Locally it lives in the file named by `SIGNING_SECRET_FILE` (base64url).
 */
export function signingKey(): Promise<Uint8Array> {
  cached ??= loadSigningKey().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function loadSigningKey(): Promise<Uint8Array> {
  const file = process.env.SIGNING_SECRET_FILE;
  if (!file) throw new Error('No signing secret is configured (SIGNING_SECRET_FILE)');
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
