/** Failed logins of one user id within a fixed window that starts at the first failure. */
export interface LoginFailures {
  readonly count: number;
  /** Epoch seconds; the counter is void from then on (and DynamoDB TTL removes it). */
  readonly windowEndsAt: number;
}

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

export const lockoutMessage = (retryAfterSeconds: number): string =>
  `Too many failed logins for this user id. Try again in ${retryAfterSeconds} ${retryAfterSeconds === 1 ? 'second' : 'seconds'}.`;
