import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { submissionRefusal } from '#shared/submissions/limits.ts';

const now = new Date('2026-11-23T12:00:00.000Z');
/** Versions submitted `secondsAgo` before now, oldest first. */
const submittedAgo = (...secondsAgo: number[]) =>
  secondsAgo.map((seconds) => ({ submittedAt: new Date(now.getTime() - seconds * 1000).toISOString() }));
const limits = { perMinute: 3, maxVersions: 100 };

describe('submission limits', () => {
  it('allows a version while fewer than the limit were submitted within the last minute', () => {
    expect(submissionRefusal([], now, limits)).toBeUndefined();
    expect(submissionRefusal(submittedAgo(30, 20), now, limits)).toBeUndefined();
    // Versions a minute old or older no longer count.
    expect(submissionRefusal(submittedAgo(300, 120, 60, 10, 5), now, limits)).toBeUndefined();
  });

  it('refuses one more within the minute, 429 with the seconds until the oldest of them is a minute old', () => {
    const refusal = submissionRefusal(submittedAgo(90, 45, 20, 5), now, limits);
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal?.kind).toBe('too-many-requests');
    expect(refusal?.retryAfterSeconds).toBe(15);
    expect(refusal?.message).toBe('Too many submissions of this gradeable: at most 3 a minute. Try again in 15 seconds.');
  });

  it('counts from the submission whose ageing leaves room, when more than the limit are recent (the limit was lowered)', () => {
    expect(submissionRefusal(submittedAgo(50, 40, 30, 20, 10), now, limits)?.retryAfterSeconds).toBe(30);
  });

  it('asks for at least one second, in the singular', () => {
    const refusal = submissionRefusal(submittedAgo(59.9, 10, 5), now, limits);
    expect(refusal?.retryAfterSeconds).toBe(1);
    expect(refusal?.message).toMatch(/Try again in 1 second\.$/);
  });

  it('asks for at most a minute, in time order, when concurrent requests stamped versions later than now and out of order', () => {
    // Requests that began after this one wrote first: their versions are stamped after `now`.
    expect(submissionRefusal(submittedAgo(10, -0.5, -0.2), now, limits)?.retryAfterSeconds).toBe(50);
    expect(submissionRefusal(submittedAgo(-0.5, -0.2, -0.9), now, limits)?.retryAfterSeconds).toBe(60);
    expect(submissionRefusal(submittedAgo(20, 50, 40), now, limits)?.retryAfterSeconds).toBe(10);
  });

  it('refuses a version beyond the most a submission may hold, whenever they were submitted', () => {
    const refusal = submissionRefusal(submittedAgo(9000, 8000), now, { perMinute: 3, maxVersions: 2 });
    expect(refusal?.kind).toBe('unprocessable');
    expect(refusal?.message).toBe('This submission has reached its limit of 2 versions.');
    expect(submissionRefusal(submittedAgo(9000), now, { perMinute: 3, maxVersions: 2 })).toBeUndefined();
  });
});
