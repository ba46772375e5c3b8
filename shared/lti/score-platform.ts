/**
 * How the lti-score function asks an LMS: a service token of the registration (service-token.ts),
 * and each request through the one guarded way to a platform (platform-request.ts), an answer's
 * absence or a refused token told as the answer the delivery records.
 */
import type { LtiRegistration } from '#shared/data/lti.ts';
import { allowedPlatformHosts } from './platform-address.ts';
import { askPlatform } from './platform-request.ts';
import { platformUrl } from './registration.ts';
import { PlatformServiceFailure, retryAfterSeconds, unreachableFailure } from './service-failure.ts';
import { forgetServiceToken, serviceToken } from './service-token.ts';

/** An answer of the LMS: its status (null: none came), body and Retry-After in seconds. */
export interface PlatformAnswer {
  readonly status: number | null;
  readonly body: string;
  readonly retryAfterSeconds?: number;
}

/** How the LMS is asked: a service token for a registration, and one request with it. */
export interface ScorePlatform {
  /** A bearer token for these scopes, or why there is none (as the token endpoint's answer). */
  token(registration: LtiRegistration, scopes: readonly string[]): Promise<{ token: string } | { answer: PlatformAnswer }>;
  request(url: URL, request: ScoreRequest): Promise<PlatformAnswer>;
  /** Forgets a token the platform answered 401 to, so the next `token` asks for a new one. */
  forget(registration: LtiRegistration, scopes: readonly string[], token: string): Promise<void>;
}

export interface ScoreRequest {
  readonly method: 'GET' | 'POST';
  readonly token: string;
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

export const scorePlatform: ScorePlatform = {
  async token(registration, scopes) {
    try {
      return { token: await serviceToken(registration, scopes) };
    } catch (error) {
      if (error instanceof PlatformServiceFailure) return { answer: failureAnswer(error) };
      throw error;
    }
  },
  forget: forgetServiceToken,
  async request(url, request) {
    const allowed = allowedPlatformHosts();
    try {
      const checked = platformUrl('lineitems', url.href, allowed);
      const answer = await askPlatform(
        'lineitems',
        checked,
        {
          method: request.method,
          headers: { accept: request.accept, authorization: `Bearer ${request.token}` },
          ...(request.json === undefined ? {} : { json: request.json, jsonType: request.contentType }),
        },
        allowed,
      );
      const seconds = retryAfterSeconds(answer.headers['retry-after'], new Date());
      return { status: answer.status, body: answer.text, ...(seconds === null ? {} : { retryAfterSeconds: seconds }) };
    } catch (error) {
      return failureAnswer(unreachableFailure('The LMS', error));
    }
  },
};
