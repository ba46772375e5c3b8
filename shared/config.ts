/** Settings read from the environment at the moment they are used, each with a checked default. */

export const DEFAULT_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

/** `TOKEN_TTL_SECONDS`: token lifetime; 0 means tokens never expire. */
export function tokenTtlSeconds(): number {
  return nonNegativeInteger('TOKEN_TTL_SECONDS', DEFAULT_TOKEN_TTL_SECONDS);
}

/** `TOKEN_ISSUER`: the JWT `iss` claim issued and required. */
export function tokenIssuer(): string {
  return process.env.TOKEN_ISSUER || 'course-submission-api';
}

/** `LOGIN_MAX_FAILURES` failed logins within `LOGIN_WINDOW_SECONDS` lock a user id until the window ends. */
export function loginLockout(): { maxFailures: number; windowSeconds: number } {
  return {
    maxFailures: positiveInteger('LOGIN_MAX_FAILURES', 5),
    windowSeconds: positiveInteger('LOGIN_WINDOW_SECONDS', 15 * 60),
  };
}

/** `MAX_BODY_BYTES`: the largest JSON or form body accepted. */
export function maxBodyBytes(): number {
  return positiveInteger('MAX_BODY_BYTES', 1024 * 1024);
}

function nonNegativeInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${name} must be a whole number of at least 0, not "${raw}"`);
  }
  return value;
}

function positiveInteger(name: string, fallback: number): number {
  const value = nonNegativeInteger(name, fallback);
  if (value === 0) throw new Error(`${name} must be at least 1`);
  return value;
}
