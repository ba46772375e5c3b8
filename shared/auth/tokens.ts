import { randomUUID } from 'node:crypto';
import { loginLockout, tokenTtlSeconds } from '#shared/config.ts';
import { clearLoginFailures, getCredentials, passwordStillIs, putPassword, recordLoginFailure } from '#shared/data/credentials.ts';
import { deleteSession, endSession, putSession } from '#shared/data/sessions.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { tooManyRequests } from '#shared/errors.ts';
import { isValidUserId } from '#shared/users/user.ts';
import { signToken, epochSeconds, type TokenClaims } from './jwt.ts';
import { lockoutMessage, lockoutState } from './lockout.ts';
import { hashPassword, verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import { wrongCredentials } from './failures.ts';

export { blankCredentials, wrongCredentials } from './failures.ts';

interface VerifiedCredentials {
  readonly userId: string;
  /** What the token write must still find, so a concurrent password change wins. */
  readonly guards: TransactItem[];
}

/**
 * Checks a user id and password under the lockout policy: a locked id is refused before any
 * hashing; a wrong password is counted, whether or not the id exists.
 */
async function verifyCredentials(userId: string, password: string): Promise<VerifiedCredentials> {
  if (!isValidUserId(userId)) {
    await verifyAgainstDecoy(password);
    throw wrongCredentials();
  }
  const policy = loginLockout();
  const now = epochSeconds(new Date());
  const { passwordHash, loginFailures } = await getCredentials(userId);

  const lockout = lockoutState(loginFailures, policy, now);
  if (lockout.locked) {
    throw tooManyRequests(lockoutMessage(lockout.retryAfterSeconds), lockout.retryAfterSeconds);
  }
  const matches = passwordHash ? await verifyPassword(password, passwordHash) : await verifyAgainstDecoy(password);
  if (!matches || !passwordHash) {
    await recordLoginFailure(userId, policy, now);
    throw wrongCredentials();
  }
  return {
    userId,
    guards: [passwordStillIs(userId, passwordHash), ...(loginFailures ? [clearLoginFailures(userId)] : [])],
  };
}

/** POST /api/token: a new token, which replaces (and so invalidates) the user's previous one. */
export async function issueToken(userId: string, password: string): Promise<string> {
  const verified = await verifyCredentials(userId, password);
  const claims = newTokenClaims(verified.userId);
  const token = await signToken(claims);
  await guardedWrite([putSession(claims), ...verified.guards]);
  return token;
}

/** POST /api/token/invalidate with credentials: no token of the user works afterwards. */
export async function invalidateWithCredentials(userId: string, password: string): Promise<void> {
  const verified = await verifyCredentials(userId, password);
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
