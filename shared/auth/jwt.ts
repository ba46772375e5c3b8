import { webcrypto } from 'node:crypto';
import { SignJWT, decodeJwt, errors, jwtVerify } from 'jose';
import { tokenIssuer } from '#shared/config.ts';
import { previousSigningKey, signingKey } from './signing-secret.ts';

const ALGORITHM = 'HS256';

/** Each secret is imported as an HMAC key once, not on every token check. */
const hmacKeys = new WeakMap<Uint8Array, Promise<webcrypto.CryptoKey>>();
function hmacKey(secret: Uint8Array): Promise<webcrypto.CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    hmacKeys.set(secret, key);
  }
  return key;
}

export interface TokenClaims {
  readonly userId: string;
  readonly tokenId: string;
  readonly issuedAt: Date;
  /** null when tokens do not expire. */
  readonly expiresAt: Date | null;
  /** How the token was obtained; a token that does not say was obtained with a password. */
  readonly method?: LoginMethod;
  /** A launch session's launch (method `lti`): what it may reach (shared/auth/launch-scope.ts). */
  readonly launch?: LaunchScope;
}

export type LoginMethod = 'password' | 'oidc' | 'lti';

/** What an LTI launch opened: the launch session is held to it. */
export interface LaunchScope {
  readonly registrationId: string;
  /** The course launched into; null for an instructor's launch from an LMS course not linked yet. */
  readonly semester: string | null;
  readonly course: string | null;
  readonly gradeableId: string | null;
  /** The course role names the launch gives. */
  readonly roles: readonly string[];
  readonly messageType: string;
}

const launchScopeOf = (value: unknown): LaunchScope | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const launch = value as Record<string, unknown>;
  const nullableText = (field: unknown) => (typeof field === 'string' ? field : null);
  if (typeof launch.registrationId !== 'string' || typeof launch.messageType !== 'string') return undefined;
  return {
    registrationId: launch.registrationId,
    semester: nullableText(launch.semester),
    course: nullableText(launch.course),
    gradeableId: nullableText(launch.gradeableId),
    roles: Array.isArray(launch.roles) ? launch.roles.filter((role): role is string => typeof role === 'string') : [],
    messageType: launch.messageType,
  };
};

export async function signToken(claims: TokenClaims): Promise<string> {
  const jwt = new SignJWT({ login: claims.method ?? 'password', ...(claims.launch ? { launch: claims.launch } : {}) })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(claims.userId)
    .setJti(claims.tokenId)
    .setIssuer(tokenIssuer())
    .setIssuedAt(epochSeconds(claims.issuedAt));
  if (claims.expiresAt) jwt.setExpirationTime(epochSeconds(claims.expiresAt));
  return jwt.sign(await hmacKey(await signingKey()));
}

/**
 * The claims of a genuine, unexpired token of ours; undefined for anything else. A token is checked
 * with the current key, then, only if its signature does not match, with the previous key while
 * the grace period after a rotation lasts.
 */
export async function verifyToken(token: string, now = new Date()): Promise<TokenClaims | undefined> {
  const key = await signingKey();
  const known = recentlyVerified(key).get(token);
  if (known && (known.expiresAt === null || known.expiresAt > now)) return known;
  const claims = await verifyWith(token, key, now);
  if (claims && claims !== 'wrong-key') remember(key, token, claims);
  if (claims !== 'wrong-key') return claims;
  const previous = await previousSigningKey(now);
  if (!previous) return undefined;
  const again = await verifyWith(token, previous, now);
  return again === 'wrong-key' ? undefined : again;
}

/**
 * The claims of a token this service signed (with the current key, or the previous one during its
 * grace period), even one that has expired or been replaced since: checked as of its own issue time.
 * Such a token proves only that its holder once logged in as its user.
 */
export async function issuedTokenClaims(token: string, now = new Date()): Promise<TokenClaims | undefined> {
  let issuedAt: Date;
  try {
    const { iat } = decodeJwt(token);
    if (typeof iat !== 'number') return undefined;
    issuedAt = new Date(iat * 1000);
  } catch {
    return undefined;
  }
  const claims = await verifyWith(token, await signingKey(), issuedAt);
  if (claims !== 'wrong-key') return claims;
  const previous = await previousSigningKey(now);
  if (!previous) return undefined;
  const again = await verifyWith(token, previous, issuedAt);
  return again === 'wrong-key' ? undefined : again;
}

/**
 * Tokens already verified with the current key: a client polling with one token (the editor
 * extension asks every two seconds) is verified once per warm instance, not per request. The
 * session check against DynamoDB still runs on every request; a new key starts an empty cache.
 */
const verified = new WeakMap<Uint8Array, Map<string, TokenClaims>>();
const MAX_REMEMBERED = 1_000;

function recentlyVerified(key: Uint8Array): Map<string, TokenClaims> {
  let tokens = verified.get(key);
  if (!tokens) {
    tokens = new Map();
    verified.set(key, tokens);
  }
  return tokens;
}

function remember(key: Uint8Array, token: string, claims: TokenClaims): void {
  const tokens = recentlyVerified(key);
  if (tokens.size >= MAX_REMEMBERED) {
    const oldest = tokens.keys().next();
    if (!oldest.done) tokens.delete(oldest.value);
  }
  tokens.set(token, claims);
}

async function verifyWith(token: string, key: Uint8Array, now: Date): Promise<TokenClaims | undefined | 'wrong-key'> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(key), {
      algorithms: [ALGORITHM],
      issuer: tokenIssuer(),
      requiredClaims: ['sub', 'jti', 'iat'],
      currentDate: now,
    });
    // jose has checked that iat is there and a number (requiredClaims); this tells TypeScript so.
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.iat !== 'number') return undefined;
    const common = {
      userId: payload.sub,
      tokenId: payload.jti,
      issuedAt: new Date(payload.iat * 1000),
      expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null,
    };
    if (payload.login === 'lti') {
      // A launch session that does not say what it launched is no token at all (it would reach everything).
      const launch = launchScopeOf(payload.launch);
      return launch ? { ...common, method: 'lti', launch } : undefined;
    }
    return { ...common, method: payload.login === 'oidc' ? 'oidc' : 'password' };
  } catch (error) {
    return error instanceof errors.JWSSignatureVerificationFailed ? 'wrong-key' : undefined;
  }
}

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
