import { describe, expect, it } from 'vitest';
import { answerFailure, retryAfterSeconds } from '#shared/lti/service-failure.ts';

const now = new Date('2026-11-29T12:00:00Z');
const answer = (status: number, text = '', headers: Record<string, string> = {}) => ({ status, contentType: '', headers, text });

describe('LTI service failures', () => {
  it("reads a Retry-After's seconds or date, within an hour, and nothing from what is neither", () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Sun, 29 Nov 2026 12:00:45 GMT', now)).toBe(45);
    expect(retryAfterSeconds('Sun, 29 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('999999', now)).toBe(3600);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds(undefined, now)).toBeNull();
  });

  it("says 429 and 5xx are worth retrying, with the platform's OAuth words, and strips control characters from them", () => {
    expect(answerFailure('The token endpoint', answer(429, '', { 'retry-after': '7' }), now)).toMatchObject({
      retryable: true,
      retryAfterSeconds: 7,
      $retryable: { throttling: true },
      message: 'The token endpoint answered HTTP 429',
    });
    expect(answerFailure('The token endpoint', answer(502), now)).toMatchObject({ retryable: true, $retryable: { throttling: false } });
    const refused = answerFailure('The token endpoint', answer(400, '{"error":"invalid_scope","error_description":"no\\nsuch"}'), now);
    expect(refused).toMatchObject({
      retryable: false,
      $retryable: undefined,
      message: 'The token endpoint answered HTTP 400 (invalid_scope: no such)',
    });
  });
});
