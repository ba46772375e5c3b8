import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { loginLockout, signInSettings, tokenTtlSeconds } from '#shared/config.ts';
import {
  clearLoginFailures,
  getPasswordHash,
  passwordStillIs,
  putPassword,
  recordLoginFailure,
  replacePassword,
  reserveLoginAttempt,
  type LoginCounter,
} from '#shared/data/credentials.ts';
import { deleteSession, endLaunchSession, endSession, putSession } from '#shared/data/sessions.ts';
import { getUser, userNotDisabled, userStillEnabled } from '#shared/data/users.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { tooManyRequests } from '#shared/errors.ts';
import { isValidUserId } from '#shared/users/user.ts';
import { tokenFromAuthorization } from './authorization-header.ts';
import { issuedTokenClaims, signToken, epochSeconds, type LoginMethod, type TokenClaims } from './jwt.ts';
import { lockoutMessage, lockoutState, loginCounter, type LockoutPolicy } from './lockout.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { accountDisabled, passwordLoginOff, passwordLoginSuperusersOnly, tokenEndedMeanwhile, wrongCredentials } from './failures.ts';

export { blankCredentials, wrongCredentials } from './failures.ts';

interface VerifiedCredentials {
  readonly userId: string;
  readonly passwordHash: string;
  readonly counter: LoginCounter;
  /** What the token write must still find, so a concurrent password change wins. */
  readonly guards: TransactItem[];
  /** Counts the attempt as failed after all (the password changed before the token was written). */
  readonly failed: () => Promise<void>;
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
  const counter = loginCounter(userId, knownClient);
  // Both settle before either's failure answers, so an error answer knows whether the count was written.
  const [counted, read] = await Promise.allSettled([countAttempt(counter, loginLockout()), getPasswordHash(userId)]);
  if (counted.status === 'rejected') throw counted.reason;
  if (read.status === 'rejected') throw read.reason;
  const [windowEndsAt, passwordHash] = [counted.value, read.value];
  const failed = () => recordLoginFailure(counter, windowEndsAt);
  if (!(await verifyPassword(password, passwordHash)) || !passwordHash) {
    await failed();
    throw wrongCredentials();
  }
  return { userId, passwordHash, counter, guards: [passwordStillIs(userId, passwordHash), clearLoginFailures(counter)], failed };
}

/** How long an attempt waits for attempts still being checked to free the counter. */
const BUSY_WAIT_MS = 10_000;

/**
 * Counts an attempt; answers the end of its window. A locked counter refuses it; a counter full of
 * attempts still being checked (concurrent logins) is tried again shortly, as one of them may be
 * right and clear it.
 */
async function countAttempt(counter: LoginCounter, policy: LockoutPolicy): Promise<number> {
  const giveUpAt = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    const now = epochSeconds(new Date());
    const reservation = await reserveLoginAttempt(counter, policy, now);
    if (!('refusedBy' in reservation)) return reservation.windowEndsAt;
    const lockout = lockoutState(reservation.refusedBy, policy, now);
    if (lockout.locked) throw tooManyRequests(lockoutMessage(lockout.retryAfterSeconds), lockout.retryAfterSeconds);
    if (Date.now() >= giveUpAt) throw tooManyRequests(lockoutMessage(1), 1);
    await setTimeout(100 + Math.random() * 200);
  }
}

/** The token a client presents to log in as a known client of that user id (see loginCounter). */
async function presentedToken(authorization: string | undefined): Promise<KnownClient> {
  const token = tokenFromAuthorization(authorization);
  return token ? issuedTokenClaims(token) : undefined;
}

/** POST /api/token: a new token, which replaces (and so invalidates) the user's previous one. */
export async function issueToken(userId: string, password: string, authorization?: string): Promise<string> {
  const { user, verified } = await verifyPasswordSignIn(userId, password, await presentedToken(authorization));
  if (user?.disabled) await refuseVerified(verified, accountDisabled());
  const claims = newTokenClaims(verified.userId);
  const token = await signToken(claims);
  try {
    // The account must still not be disabled when the session is written (a disabling ends sessions).
    await guardedWrite([userNotDisabled(verified.userId), putSession(claims)], verified, 1);
  } catch (error) {
    if (error !== DISABLED_MEANWHILE) throw error;
    await refuseVerified(verified, accountDisabled());
  }
  return token;
}

/**
 * Checks a password as a login does, under the deployment's PASSWORD_LOGIN: `off` refuses before
 * anything is counted or read; `superusers` refuses others only once their password proved right,
 * so a wrong one learns nothing about the account.
 */
async function verifyPasswordSignIn(userId: string, password: string, knownClient: KnownClient) {
  const { passwordLogin, oidc } = signInSettings();
  const issuer = oidc?.issuer ?? '';
  if (passwordLogin === 'off') throw passwordLoginOff({ issuer });
  // The account is read before the attempt is counted, so a failed read leaves no attempt pending
  // against the counter.
  const user = isValidUserId(userId) ? await getUser(userId) : undefined;
  const verified = await verifyCredentials(userId, password, knownClient);
  if (passwordLogin === 'superusers' && user?.accessLevel !== 'superuser')
    await refuseVerified(verified, passwordLoginSuperusersOnly({ issuer }));
  return { user, verified };
}

/** Refuses an attempt whose password was right: its attempt is cleared as a login's would be, and nothing else is written. */
async function refuseVerified(verified: VerifiedCredentials, refusal: Error): Promise<never> {
  await guardedWrite([], verified);
  throw refusal;
}

/** POST /api/token/invalidate with credentials: no token of the user works afterwards. */
export async function invalidateWithCredentials(userId: string, password: string, knownClient?: KnownClient): Promise<void> {
  const { verified } = await verifyPasswordSignIn(userId, password, knownClient);
  await guardedWrite([deleteSession(verified.userId)], verified);
}

/** POST /api/token/invalidate with a token (logout). */
export const invalidateToken = (claims: Pick<TokenClaims, 'userId' | 'tokenId' | 'method'>): Promise<void> =>
  claims.method === 'lti' ? endLaunchSession(claims.userId, claims.tokenId) : endSession(claims.userId, claims.tokenId);

/** Sets a password and ends the user's session in one transaction (with `alongside`, e.g. an audit entry). */
export async function setPassword(userId: string, password: string, alongside: readonly TransactItem[] = []): Promise<void> {
  await transactWrite([putPassword(userId, await hashPassword(password)), deleteSession(userId), ...alongside]);
}

/**
 * The caller's own password change: the current password is checked as a login is (PASSWORD_LOGIN
 * applies; it counts against the caller's token's login counter, and a locked counter refuses it),
 * then the new password, a new session (ending the old token) and `alongside` are written
 * together, only if the password did not change meanwhile, the account is still enabled and the
 * caller's token is still the current one: a change under way when a superuser disables the
 * account, or when another login replaces the token, writes nothing. Answers the new token.
 */
export async function changeOwnPassword(
  claims: Pick<TokenClaims, 'userId' | 'tokenId'>,
  currentPassword: string,
  newPassword: string,
  alongside: readonly TransactItem[] = [],
): Promise<string> {
  const { user, verified } = await verifyPasswordSignIn(claims.userId, currentPassword, claims);
  if (!user || user.disabled) await refuseVerified(verified, accountDisabled());
  const passwordHash = await hashPassword(newPassword);
  const next = newTokenClaims(claims.userId);
  const token = await signToken(next);
  try {
    await transactWrite([
      replacePassword(claims.userId, passwordHash, verified.passwordHash),
      putSession(next, claims.tokenId),
      userStillEnabled(claims.userId),
      clearLoginFailures(verified.counter),
      ...alongside,
    ]);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.includes(2)) throw accountDisabled();
    if (failed.includes(1)) throw tokenEndedMeanwhile();
    // The password changed between the check and this write: the old password no longer logs in.
    if (failed.includes(0)) {
      await verified.failed();
      throw wrongCredentials();
    }
    throw error;
  }
  return token;
}

export function newTokenClaims(userId: string, now = new Date(), method: LoginMethod = 'password'): TokenClaims {
  const ttl = tokenTtlSeconds();
  const issuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    userId,
    tokenId: randomUUID(),
    issuedAt,
    expiresAt: ttl === 0 ? null : new Date(issuedAt.getTime() + ttl * 1000),
    method,
  };
}

const DISABLED_MEANWHILE = Symbol('disabled meanwhile');

/** Writes `items` with the password's guards; the first `ownChecks` items' failed conditions throw DISABLED_MEANWHILE. */
async function guardedWrite(items: TransactItem[], verified: VerifiedCredentials, ownChecks = 0): Promise<void> {
  try {
    await transactWrite([...items, ...verified.guards]);
  } catch (error) {
    if (failedConditions(error).some((index) => index < ownChecks)) throw DISABLED_MEANWHILE;
    // The password changed between the check and this write: the old password no longer logs in.
    if (failedConditions(error).length > 0) {
      await verified.failed();
      throw wrongCredentials();
    }
    throw error;
  }
}
