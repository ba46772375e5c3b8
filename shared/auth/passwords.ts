import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (OWASP's N=2^15, r=8, p=3 profile). The parameters travel with each
 * hash (`scrypt$N$r$p$salt$hash`), so they can be raised later without invalidating old hashes.
 */
export interface HashProfile {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

const STANDARD: HashProfile = { N: 2 ** 15, r: 8, p: 3 };

/**
 * For passwords the service generates (at least 96 random bits), stretching adds nothing against
 * guessing, so a cheap profile keeps bulk imports fast.
 */
const GENERATED: HashProfile = { N: 2 ** 12, r: 8, p: 1 };

/**
 * Every profile the service hashes with. A verification derives once with each, so that a wrong
 * password costs the same whichever of them the user's hash has, and for a user id without one.
 * A profile retired from hashing stays here while stored hashes may still carry it.
 */
const PROFILES: readonly HashProfile[] = [STANDARD, GENERATED];

const KEY_BYTES = 32;
const SALT_BYTES = 16;

export async function hashPassword(password: string, profile: HashProfile = STANDARD): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p } = profile;
  const hash = await derive(password, salt, KEY_BYTES, profile);
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export const hashGeneratedPassword = (password: string) => hashPassword(password, GENERATED);

/** A random password of 16 characters (96 bits). */
export const generatePassword = (): string => randomBytes(12).toString('base64url');

interface StoredHash extends HashProfile {
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function parseHash(stored: string): StoredHash | undefined {
  const [scheme, nText, rText, pText, saltText, hashText, ...extra] = stored.split('$');
  if (scheme !== 'scrypt' || saltText === undefined || hashText === undefined || extra.length > 0) return undefined;
  const [N, r, p] = [nText, rText, pText].map(Number) as [number, number, number];
  const hash = Buffer.from(hashText, 'base64url');
  if (![N, r, p].every(Number.isSafeInteger) || hash.length === 0) return undefined;
  return { N, r, p, salt: Buffer.from(saltText, 'base64url'), hash };
}

const sameProfile = (a: HashProfile, b: HashProfile) => a.N === b.N && a.r === b.r && a.p === b.p;

/** A fixed salt for the derivations that only spend time. */
const DECOY_SALT = randomBytes(SALT_BYTES);

/**
 * Constant-time comparison; a malformed stored hash, or none (a user id without a password),
 * never matches. Whatever is stored, one derivation of every profile runs: the stored hash's own
 * with its salt, the others with a decoy.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parseHash(stored);
  let matches = false;
  // A hash of a profile not in the list (one raised since) is still checked, beside the decoys.
  if (parsed && !PROFILES.some((profile) => sameProfile(profile, parsed))) matches = await matchesHash(password, parsed);
  for (const profile of PROFILES) {
    if (parsed && sameProfile(profile, parsed)) matches = await matchesHash(password, parsed);
    else await derive(password, DECOY_SALT, KEY_BYTES, profile);
  }
  return matches;
}

async function matchesHash(password: string, stored: StoredHash): Promise<boolean> {
  const actual = await derive(password, stored.salt, stored.hash.length, stored);
  return timingSafeEqual(actual, stored.hash);
}

function derive(password: string, salt: Buffer, length: number, { N, r, p }: HashProfile): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}
