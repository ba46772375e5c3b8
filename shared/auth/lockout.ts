import type { LoginCounter, LoginFailures } from '#shared/data/credentials.ts';
import { inSeconds } from '#shared/errors.ts';
import type { TokenClaims } from './jwt.ts';
import { tooManyFailedLogins } from './failures.ts';

export type { LoginCounter, LoginFailures } from '#shared/data/credentials.ts';

export interface LockoutPolicy {
  readonly maxFailures: number;
  readonly windowSeconds: number;
}

export type LockoutState = { locked: false } | { locked: true; retryAfterSeconds: number };

/**
 * The rule: `maxFailures` wrong passwords within a window lock the counter until the window ends.
 * Every attempt is counted before its password is checked, and the counter's conditional write
 * (reserveLoginAttempt) lets at most `maxFailures` attempts be counted in a window, so no more
 * passwords are ever checked. A counter full of attempts that are not all wrong (some still being
 * checked) is not locked: one of them may yet be right and clear it.
 */
export function lockoutState(
  failures: Pick<LoginFailures, 'count' | 'windowEndsAt'> | undefined,
  policy: LockoutPolicy,
  nowSeconds: number,
): LockoutState {
  if (!failures || failures.windowEndsAt <= nowSeconds || failures.count < policy.maxFailures) {
    return { locked: false };
  }
  return { locked: true, retryAfterSeconds: failures.windowEndsAt - nowSeconds };
}

/**
 * Whom an attempt counts against. A known client (one presenting a token issued to this user id,
 * even an expired or replaced one) has a counter of its own, which nobody else's failures fill;
 * every other attempt counts against the user id's shared counter.
 */
export function loginCounter(userId: string, presented: Pick<TokenClaims, 'userId' | 'tokenId'> | undefined): LoginCounter {
  return presented?.userId === userId ? { userId, tokenId: presented.tokenId } : { userId };
}

export const lockoutMessage = (retryAfterSeconds: number): string => tooManyFailedLogins.text({ seconds: inSeconds(retryAfterSeconds) });
