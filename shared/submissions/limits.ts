import { inSeconds, tooManyRequests, type Refusal } from '#shared/errors.ts';
import { tooManySubmissions, tooManyVersions } from './failures.ts';

export interface SubmissionLimits {
  /** Versions within any 60 seconds. */
  readonly perMinute: number;
  readonly maxVersions: number;
}

const MINUTE_MS = 60_000;

/**
 * Why one more version may not be submitted now, if it may not: a student (or team) that submitted
 * `perMinute` versions in the last minute waits until the oldest of them is a minute old, so that
 * nobody fills the grading queue ahead of everyone else before a deadline; and a submission holds
 * at most `maxVersions`. Versions are stamped by the request that wrote them, so a concurrent
 * request's version may carry a later time than `now`, and version order need not be time order.
 */
export function submissionRefusal(
  versions: readonly { readonly submittedAt: string }[],
  now: Date,
  limits: SubmissionLimits,
): Refusal | undefined {
  if (versions.length >= limits.maxVersions) return tooManyVersions({ limit: limits.maxVersions });
  const recent = versions
    .map((version) => Date.parse(version.submittedAt))
    .filter((at) => at > now.getTime() - MINUTE_MS)
    .sort((a, b) => a - b);
  if (recent.length < limits.perMinute) return undefined;
  // The submission that, once a minute old, leaves room for one more.
  const freeing = recent[recent.length - limits.perMinute] ?? now.getTime() - MINUTE_MS;
  const seconds = Math.min(MINUTE_MS / 1000, Math.max(1, Math.ceil((freeing + MINUTE_MS - now.getTime()) / 1000)));
  return tooManyRequests(tooManySubmissions.text({ limit: limits.perMinute, seconds: inSeconds(seconds) }), seconds);
}
