/**
 * How the lti-score function asks an LMS: each request with a service token of the registration
 * (service-token.ts, renewed once when the platform answers 401 to a kept one) through the one
 * guarded way to a platform (platform-request.ts), an answer's absence or a refused token told as
 * the answer the delivery records.
 */
import type { LtiRegistration } from '#shared/data/lti.ts';
import { allowedPlatformHosts } from './platform-address.ts';
import { askPlatform } from './platform-request.ts';
import { platformUrl } from './registration.ts';
import { PlatformServiceFailure, retryAfterSeconds, unreachableFailure } from './service-failure.ts';
import { withServiceToken } from './service-token.ts';

/** An answer of the LMS: its status (null: none came), body and Retry-After in seconds. */
export interface PlatformAnswer {
  readonly status: number | null;
  readonly body: string;
  readonly retryAfterSeconds?: number;
}

/** How the LMS is asked: one request with the registration's service token for `scopes`. */
export interface ScorePlatform {
  request(registration: LtiRegistration, scopes: readonly string[], url: URL, request: ScoreRequest): Promise<PlatformAnswer>;
}

export interface ScoreRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly accept: string;
  readonly contentType?: string;
  readonly json?: unknown;
}

/** A failure of the service token or of a request as an answer: its status, or none (retried unless it never can work). */
function failureAnswer(failure: PlatformServiceFailure): PlatformAnswer {
  const retryAfter = failure.retryAfterSeconds === null ? {} : { retryAfterSeconds: failure.retryAfterSeconds };
  // A failure that can never work (a URL the tool may not reach) is told as a refusal, not retried.
  const status = failure.status ?? (failure.retryable ? null : 400);
  return { status, body: failure.message, ...retryAfter };
}

/** One request with `token`; no answer told as the answer the delivery records. */
async function ask(url: URL, request: ScoreRequest, token: string): Promise<PlatformAnswer> {
  const allowed = allowedPlatformHosts();
  try {
    const checked = platformUrl('lineitems', url.href, allowed);
    const answer = await askPlatform(
      'lineitems',
      checked,
      {
        method: request.method,
        headers: { accept: request.accept, authorization: `Bearer ${token}` },
        ...(request.json === undefined ? {} : { json: request.json, jsonType: request.contentType }),
      },
      allowed,
    );
    const seconds = retryAfterSeconds(answer.headers['retry-after'], new Date());
    return { status: answer.status, body: answer.text, ...(seconds === null ? {} : { retryAfterSeconds: seconds }) };
  } catch (error) {
    return failureAnswer(unreachableFailure('The LMS', error));
  }
}

export const scorePlatform: ScorePlatform = {
  async request(registration, scopes, url, request) {
    try {
      return await withServiceToken(registration, scopes, (token) => ask(url, request, token));
    } catch (error) {
      if (error instanceof PlatformServiceFailure) return failureAnswer(error);
      throw error;
    }
  },
};
