import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (OWASP's N=2^15, r=8, p=3 profile). The parameters travel with each
 * hash (`scrypt$N$r$p$salt$hash`), so they can be raised later without invalidating old hashes.
 */
const PARAMETERS = { N: 2 ** 15, r: 8, p: 3 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/**
 * For passwords the service generates (at least 96 random bits), stretching adds nothing against
 * guessing, so a cheap profile keeps bulk imports fast.
 */
const GENERATED_PASSWORD_PARAMETERS = { N: 2 ** 12, r: 8, p: 1 } as const;

export async function hashPassword(password: string, parameters: { N: number; r: number; p: number } = PARAMETERS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p } = parameters;
  const hash = await derive(password, salt, KEY_BYTES, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export const hashGeneratedPassword = (password: string) => hashPassword(password, GENERATED_PASSWORD_PARAMETERS);

/** A random password of 16 characters (96 bits). */
export const generatePassword = (): string => randomBytes(12).toString('base64url');

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, nText, rText, pText, saltText, hashText, ...extra] = stored.split('$');
  if (scheme !== 'scrypt' || saltText === undefined || hashText === undefined || extra.length > 0) return false;
  const [N, r, p] = [nText, rText, pText].map(Number) as [number, number, number];
  const salt = Buffer.from(saltText, 'base64url');
  const expected = Buffer.from(hashText, 'base64url');
  if (![N, r, p].every(Number.isSafeInteger) || expected.length === 0) return false;
  const actual = await derive(password, salt, expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}

let decoyHash: Promise<string> | undefined;

/** Spends the time a real verification would, so unknown user ids cannot be told apart by timing. */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoyHash ??= hashPassword('decoy password for unknown users');
  await verifyPassword(password, await decoyHash);
  return false;
}

function derive(password: string, salt: Buffer, length: number, options: ScryptOptions & { N: number; r: number }): Promise<Buffer> {
  const maxmem = 256 * options.N * options.r + 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}
