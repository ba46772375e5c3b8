/**
 * The keys grading records are signed with (Ed25519, JWS `EdDSA`): each made from a seed, one a
 * line of the record keys' secret. Line 1 signs new records; every line's public key stays
 * published (`GET /api/records/jwks`), so a record signed before a new key was added still
 * verifies.
 *
 * - Deployed (`RECORD_KEYS_ARN`): the Secrets Manager secret's current text, read again after
 *   five minutes. The stack generates it once; a new key is a new first line.
 * - Locally (`RECORD_KEYS_FILE`): a file in the data folder, made once with one fresh seed
 *   (`npm run admin -- rotate-record-key` adds a new first line). Read again when it changes.
 *
 * A seed is any line of at least 32 characters; the key's 32 bytes are its SHA-256, so the
 * stack's generated password and a local base64url line serve alike. No message ever holds a seed.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { statSync } from 'node:fs';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { currentSecretString } from '#shared/auth/signing-secret.ts';
import { setting } from '#shared/environment.ts';

const MIN_SEED_CHARACTERS = 32;
const SECRET_MAX_AGE_SECONDS = 300;

/** One record key: its id (the RFC 7638 thumbprint of its public JWK), its private half and its public JWK. */
export interface RecordKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicJwk: JWK;
}

/** The PKCS #8 prefix of a raw 32-byte Ed25519 private key. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The key a seed line stands for. */
export async function recordKeyOf(seed: string): Promise<RecordKey> {
  const raw = createHash('sha256').update(seed, 'utf8').digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
  const jwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, privateKey, publicJwk: { ...jwk, kid, alg: 'EdDSA', use: 'sig' } };
}

/** The seeds of a secret's text, newest first. */
export function parseRecordSeeds(text: string): string[] {
  const seeds = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (seeds.length === 0) throw new Error('The record keys hold no key');
  if (seeds.some((seed) => seed.length < MIN_SEED_CHARACTERS)) {
    throw new Error(`Every record key line must hold at least ${MIN_SEED_CHARACTERS} characters`);
  }
  return seeds;
}

const cached = new Map<string, { version: string; keys: Promise<RecordKey[]> }>();

/** Every record key, the signing one first. */
export async function recordKeys(): Promise<RecordKey[]> {
  const arn = setting('RECORD_KEYS_ARN');
  const file = setting('RECORD_KEYS_FILE');
  if (!arn && !file) throw new Error('No record keys are configured (RECORD_KEYS_ARN or RECORD_KEYS_FILE)');
  const version = arn ? `${Math.floor(Date.now() / (SECRET_MAX_AGE_SECONDS * 1000))}` : await fileVersion(file as string);
  const where = arn ?? (file as string);
  const entry = cached.get(where);
  if (entry?.version === version) return entry.keys;
  const keys = (arn ? currentSecretString(arn) : readFile(file as string, 'utf8')).then((text) =>
    Promise.all(parseRecordSeeds(text).map(recordKeyOf)),
  );
  keys.catch(() => cached.delete(where));
  cached.set(where, { version, keys });
  return keys;
}

/** The key new records are signed with. */
export async function signingRecordKey(): Promise<RecordKey> {
  return (await recordKeys())[0] as RecordKey;
}

/** The public keys as a JWK Set, the signing one first. */
export async function publishedRecordKeys(): Promise<{ keys: JWK[] }> {
  return { keys: (await recordKeys()).map((key) => key.publicJwk) };
}

/** The file's identity now: made when first needed (a worker signing before `npm start` made it, a test run). */
async function fileVersion(file: string): Promise<string> {
  const stats = () => statSync(file, { bigint: true, throwIfNoEntry: false });
  let info = stats();
  if (!info) {
    await ensureRecordKeysFile(file);
    info = stats();
  }
  if (!info) throw new Error('The record keys file could not be made');
  return `${info.ino}:${info.mtimeNs}:${info.size}`;
}

const newSeed = (): string => randomBytes(32).toString('base64url');

/** Makes the local record keys file once, with one fresh key; whoever comes second keeps the first one's. */
export async function ensureRecordKeysFile(file: string): Promise<void> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${newSeed()}\n`, { flag: 'wx', mode: 0o600 });
  try {
    // A link appears whole or not at all, so nobody reads a half-written file.
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
}

/** Adds a new signing key as line 1 of the local file; the older keys stay published. Returns the new key's id. */
export async function rotateRecordKeysFile(file: string): Promise<string> {
  const seeds = parseRecordSeeds(await readFile(file, 'utf8'));
  const seed = newSeed();
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${[seed, ...seeds].join('\n')}\n`, { flag: 'wx', mode: 0o600 });
  await rename(temporary, file);
  return (await recordKeyOf(seed)).kid;
}
