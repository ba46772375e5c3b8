import { randomUUID } from 'node:crypto';
import { loginLockout, tokenTtlSeconds } from '#shared/config.ts';
import { clearLoginFailures, getPasswordHash, passwordStillIs, putPassword, reserveLoginAttempt } from '#shared/data/credentials.ts';
import { deleteSession, endSession, putSession } from '#shared/data/sessions.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { tooManyRequests } from '#shared/errors.ts';
import { isValidUserId } from '#shared/users/user.ts';
import { tokenFromAuthorization } from './authorization-header.ts';
import { issuedTokenClaims, signToken, epochSeconds, type TokenClaims } from './jwt.ts';
import { lockoutMessage, lockoutState, loginCounter } from './lockout.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { wrongCredentials } from './failures.ts';

export { blankCredentials, wrongCredentials } from './failures.ts';

interface VerifiedCredentials {
  readonly userId: string;
  /** What the token write must still find, so a concurrent password change wins. */
  readonly guards: TransactItem[];
}

type KnownClient = Pick<TokenClaims, 'userId' | 'tokenId'> | undefined;

/**
 * Checks a user id and password under the lockout policy. The attempt is counted first, whether
 * or not the id exists; only a counted attempt has its password checked, so concurrent guesses
 * never pass the limit, and a locked counter is refused before any hashing. A correct password
 * clears the counter it was counted against.
 */
async function verifyCredentials(userId: string, password: string, knownClient: KnownClient): Promise<VerifiedCredentials> {
  if (!isValidUserId(userId)) {
    await verifyPassword(password, undefined);
    throw wrongCredentials();
  }
  const policy = loginLockout();
  const now = epochSeconds(new Date());
  const counter = loginCounter(userId, knownClient);
  const [refusedBy, passwordHash] = await Promise.all([reserveLoginAttempt(counter, policy, now), getPasswordHash(userId)]);
  if (refusedBy) {
    const lockout = lockoutState(refusedBy, policy, now);
    const retryAfterSeconds = lockout.locked ? lockout.retryAfterSeconds : 1;
    throw tooManyRequests(lockoutMessage(retryAfterSeconds), retryAfterSeconds);
  }
  if (!(await verifyPassword(password, passwordHash)) || !passwordHash) throw wrongCredentials();
  return { userId, guards: [passwordStillIs(userId, passwordHash), clearLoginFailures(counter)] };
}

/** The token a client presents to log in as a known client of that user id (see loginCounter). */
async function presentedToken(authorization: string | undefined): Promise<KnownClient> {
  const token = tokenFromAuthorization(authorization);
  return token ? issuedTokenClaims(token) : undefined;
}

/** POST /api/token: a new token, which replaces (and so invalidates) the user's previous one. */
export async function issueToken(userId: string, password: string, authorization?: string): Promise<string> {
  const verified = await verifyCredentials(userId, password, await presentedToken(authorization));
  const claims = newTokenClaims(verified.userId);
  const token = await signToken(claims);
  await guardedWrite([putSession(claims), ...verified.guards]);
  return token;
}

/** POST /api/token/invalidate with credentials: no token of the user works afterwards. */
export async function invalidateWithCredentials(userId: string, password: string, knownClient?: KnownClient): Promise<void> {
  const verified = await verifyCredentials(userId, password, knownClient);
  await guardedWrite([deleteSession(verified.userId), ...verified.guards]);
}

/** POST /api/token/invalidate with a token (logout). */
export const invalidateToken = (claims: Pick<TokenClaims, 'userId' | 'tokenId'>): Promise<void> =>
  endSession(claims.userId, claims.tokenId);

/** Sets a password and ends the user's session in one transaction. */
export async function setPassword(userId: string, password: string): Promise<void> {
  await transactWrite([putPassword(userId, await hashPassword(password)), deleteSession(userId)]);
}

export function newTokenClaims(userId: string, now = new Date()): TokenClaims {
  const ttl = tokenTtlSeconds();
  const issuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    userId,
    tokenId: randomUUID(),
    issuedAt,
    expiresAt: ttl === 0 ? null : new Date(issuedAt.getTime() + ttl * 1000),
  };
}

async function guardedWrite(items: TransactItem[]): Promise<void> {
  try {
    await transactWrite(items);
  } catch (error) {
    // The password changed between the check and this write: the old password no longer logs in.
    if (failedConditions(error).length > 0) throw wrongCredentials();
    throw error;
  }
}
