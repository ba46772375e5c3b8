import type { LoginFailures } from '#shared/data/credentials.ts';
import { inSeconds } from '#shared/errors.ts';
import { tooManyFailedLogins } from './failures.ts';

export type { LoginFailures } from '#shared/data/credentials.ts';

export interface LockoutPolicy {
  readonly maxFailures: number;
  readonly windowSeconds: number;
}

export type LockoutState = { locked: false } | { locked: true; retryAfterSeconds: number };

export function lockoutState(failures: LoginFailures | undefined, policy: LockoutPolicy, nowSeconds: number): LockoutState {
  if (!failures || failures.windowEndsAt <= nowSeconds || failures.count < policy.maxFailures) {
    return { locked: false };
  }
  return { locked: true, retryAfterSeconds: failures.windowEndsAt - nowSeconds };
}

export const lockoutMessage = (retryAfterSeconds: number): string => tooManyFailedLogins.text({ seconds: inSeconds(retryAfterSeconds) });
