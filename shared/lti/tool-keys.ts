/**
 * The tool's own signing keys (RS256), which platforms fetch from `GET /api/lti/jwks`: the current
 * key, which signs, and the next one, published before it ever signs so that a platform's cached
 * key set already holds it when a rotation makes it current.
 *
 * - Deployed (`LTI_KEY_ARN`): a Secrets Manager secret holding the key set's JSON, read at most
 *   once in five minutes per function instance.
 * - Locally (`LTI_KEY_FILE`, `lti-key.json` in the data folder): the same JSON, read again when the
 *   file changes.
 *
 * `npm run admin -- rotate-lti-key` makes the next key current and publishes a new next one. A
 * secret not yet given keys (a fresh deployment) holds none: the key set is then empty.
 */
import { statSync } from 'node:fs';
import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { currentSecretString } from '#shared/auth/signing-secret.ts';
import { setting } from '#shared/environment.ts';

export const LTI_KEY_ALGORITHM = 'RS256';
/** How long a warm function keeps the deployed key set before reading it again (a rotation). */
const SECRET_MAX_AGE_MS = 5 * 60 * 1000;
/** The members of an RSA JWK that are private: never published. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

export interface ToolKeys {
  readonly current?: JWK;
  readonly next?: JWK;
}

/** A key set's JSON as stored; anything without keys (a fresh secret) holds none. */
export function parseToolKeys(text: string): ToolKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const { current, next } = parsed as Record<string, unknown>;
  const key = (value: unknown): JWK | undefined =>
    typeof value === 'object' && value !== null && typeof (value as JWK).kid === 'string' && (value as JWK).kty === 'RSA'
      ? (value as JWK)
      : undefined;
  const keys: { current?: JWK; next?: JWK } = {};
  const [first, second] = [key(current), key(next)];
  if (first) keys.current = first;
  if (second) keys.next = second;
  return keys;
}

/** A key's public half, as a key set publishes it. */
export function publicJwk(key: JWK): JWK {
  const kept = Object.entries(key).filter(([member]) => !(PRIVATE_MEMBERS as readonly string[]).includes(member));
  return { ...(Object.fromEntries(kept) as JWK), alg: LTI_KEY_ALGORITHM, use: 'sig' };
}

/** The public key set: the current key, then the next. */
export const publicKeySet = (keys: ToolKeys): { keys: JWK[] } => ({
  keys: [keys.current, keys.next].filter((key): key is JWK => key !== undefined).map(publicJwk),
});

/** A new RSA key with a key id of its own. */
export async function newToolKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(LTI_KEY_ALGORITHM, { modulusLength: 2048, extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomBytes(12).toString('base64url'), alg: LTI_KEY_ALGORITHM, use: 'sig' };
}

/** The key set after a rotation: the next key becomes current (a first rotation makes both), and a new next one is published. */
export async function rotatedToolKeys(keys: ToolKeys): Promise<Required<ToolKeys>> {
  return { current: keys.next ?? keys.current ?? (await newToolKey()), next: await newToolKey() };
}

let deployed: { arn: string; readAt: number; keys: Promise<ToolKeys> } | undefined;
const local = new Map<string, { version: string; keys: Promise<ToolKeys> }>();

/** The tool's keys as the running function sees them. */
export function toolKeys(): Promise<ToolKeys> {
  const arn = setting('LTI_KEY_ARN');
  if (arn) {
    if (deployed?.arn === arn && Date.now() - deployed.readAt < SECRET_MAX_AGE_MS) return deployed.keys;
    const keys = currentSecretString(arn).then(parseToolKeys);
    const entry = { arn, readAt: Date.now(), keys };
    deployed = entry;
    keys.catch(() => deployed === entry && (deployed = undefined));
    return keys;
  }
  const file = setting('LTI_KEY_FILE');
  if (!file) throw new Error('No LTI key is configured (LTI_KEY_ARN or LTI_KEY_FILE)');
  const info = statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!info) return Promise.resolve({});
  const version = `${info.ino}:${info.mtimeNs}:${info.size}`;
  const entry = local.get(file);
  if (entry?.version === version) return entry.keys;
  const keys = readFile(file, 'utf8').then(parseToolKeys);
  keys.catch(() => local.delete(file));
  local.set(file, { version, keys });
  return keys;
}

/** Creates the local key file once, with a current and a next key; an existing file is kept. */
export async function ensureToolKeyFile(path: string): Promise<void> {
  let mode: number;
  try {
    ({ mode } = await stat(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return writeKeyFile(path, await rotatedToolKeys({}));
  }
  // A file made by hand may be readable by others: a private key is the owner's alone.
  if ((mode & 0o077) !== 0) await chmod(path, mode & 0o600);
}

/** Rotates the local key file atomically (a running local API notices); answers the new current key's id. */
export async function rotateToolKeyFile(path: string): Promise<Required<ToolKeys>> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const keys = await rotatedToolKeys(parseToolKeys(text));
  await writeKeyFile(path, keys);
  return keys;
}

async function writeKeyFile(path: string, keys: ToolKeys): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(keys)}\n`, { flag: 'wx', mode: 0o600 });
  await rename(temporary, path);
}
