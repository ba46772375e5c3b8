/**
 * Why a call of a platform's service (its token endpoint, names and roles, grades) did not succeed,
 * said so that a caller knows which it was and whether to try again: the platform could not be
 * reached (retryable, unless its URL is one the service may not reach or its answer is too large),
 * or it answered an error (retryable for 429 and 5xx, with the platform's Retry-After when it sent
 * one).
 */
import { Refusal } from '#shared/errors.ts';
import { PlatformUnreachable, type PlatformResponse } from './platform-request.ts';

/** The most characters of a platform's own words (an OAuth `error_description`) repeated in a failure. */
const MAX_PLATFORM_WORDS = 200;
/** A Retry-After longer than this is read as this: a caller waits, it does not give up for a day. */
const MAX_RETRY_AFTER_SECONDS = 3600;

export type PlatformServiceFailureKind = 'unreachable' | 'refused';

export class PlatformServiceFailure extends Error {
  override readonly name = 'PlatformServiceFailure';
  /** `unreachable`: no usable answer; `refused`: the platform answered an error status. */
  readonly kind: PlatformServiceFailureKind;
  /** The platform's HTTP status, when it answered. */
  readonly status: number | null;
  /** Worth trying again later: a network failure, 429 or a 5xx. */
  readonly retryable: boolean;
  /** The platform's Retry-After, in seconds from the answer, when it sent one. */
  readonly retryAfterSeconds: number | null;
  /** Marked as the SDK marks transient errors, so that an uncaught one is answered 503 (shared/http/middleware/envelope.ts). */
  readonly $retryable: { throttling: boolean } | undefined;

  constructor(
    message: string,
    details: { kind: PlatformServiceFailureKind; status?: number | null; retryable: boolean; retryAfterSeconds?: number | null },
  ) {
    super(message);
    this.kind = details.kind;
    this.status = details.status ?? null;
    this.retryable = details.retryable;
    this.retryAfterSeconds = details.retryAfterSeconds ?? null;
    this.$retryable = details.retryable ? { throttling: details.status === 429 } : undefined;
  }
}

/** A Retry-After header (delay-seconds or an HTTP date) as seconds from `now`; null when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, now: Date): number | null {
  const value = header?.trim();
  if (!value) return null;
  const seconds = /^\d+$/.test(value) ? Number(value) : Math.ceil((Date.parse(value) - now.getTime()) / 1000);
  if (!Number.isFinite(seconds)) return null;
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}

/** True for a status that says "not now" rather than "no". */
export const isRetryableStatus = (status: number): boolean => status === 429 || status >= 500;

/** The platform's words about an error answer: OAuth's `error` and `error_description`, or nothing. */
function platformWords(response: PlatformResponse): string {
  try {
    const body = JSON.parse(response.text) as { error?: unknown; error_description?: unknown };
    const words = [body.error, body.error_description].filter((part): part is string => typeof part === 'string' && part !== '');
    // Control characters would let a platform write lines into a log of its own making.
    return words
      .join(': ')
      .replace(/\p{Cc}/gu, ' ')
      .slice(0, MAX_PLATFORM_WORDS);
  } catch {
    return '';
  }
}

/** The failure of an error answer of `service` (such as "the token endpoint"). */
export function answerFailure(service: string, response: PlatformResponse, now: Date): PlatformServiceFailure {
  const retryable = isRetryableStatus(response.status);
  const words = platformWords(response);
  return new PlatformServiceFailure(`${service} answered HTTP ${response.status}${words ? ` (${words})` : ''}`, {
    kind: 'refused',
    status: response.status,
    retryable,
    retryAfterSeconds: retryable ? retryAfterSeconds(response.headers['retry-after'], now) : null,
  });
}

/** The failure of an answer of `service` that is not what the service's specification says it is. */
export const malformedAnswer = (service: string, problem: string): PlatformServiceFailure =>
  new PlatformServiceFailure(`${service} answered ${problem}`, { kind: 'refused', status: 200, retryable: false });

/**
 * The failure of a request that found no usable answer: the network's (retryable) or the URL's
 * refusal (the registration names a URL the service may not reach: not retryable).
 */
export function unreachableFailure(service: string, error: unknown): PlatformServiceFailure {
  if (error instanceof PlatformServiceFailure) return error;
  if (error instanceof PlatformUnreachable) {
    return new PlatformServiceFailure(`${service} could not be reached: ${error.message}`, {
      kind: 'unreachable',
      retryable: error.retryable,
    });
  }
  if (error instanceof Refusal) {
    return new PlatformServiceFailure(`${service} may not be asked: ${error.message}`, { kind: 'unreachable', retryable: false });
  }
  throw error;
}
