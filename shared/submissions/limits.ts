import { inSeconds, tooManyRequests, type Refusal } from '#shared/errors.ts';
import { MAX_TEAM_MEMBERS, versionClaimsBudget } from '#shared/data/transaction-limits.ts';
import { teamTooLargeToSubmit, tooManyJobs, tooManySubmissions, tooManyUploadsForTeam, tooManyVersions } from './failures.ts';

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

/** How long a student over their count of queued jobs is asked to wait: about one grading. */
export const QUEUED_JOBS_RETRY_SECONDS = 30;

/**
 * Why a student may not queue one more job now, if they may not: once queued, they would have more
 * than `max` jobs queued or being graded (across every gradeable of every course). `after` is their
 * count with this job (none: staff submitting for a student, which is not counted).
 */
export function queuedJobsRefusal(after: number | undefined, max: number): Refusal | undefined {
  if (after === undefined || after <= max) return undefined;
  return tooManyRequests(tooManyJobs.text({ limit: max, seconds: inSeconds(QUEUED_JOBS_RETRY_SECONDS) }), QUEUED_JOBS_RETRY_SECONDS);
}

/**
 * Why a version of a team of `members` (none: a student's own) consuming `claims` uploads would not
 * fit one transaction, if it would not: a team larger than teams may be now (formed before they were
 * bounded), or more uploads than fit beside its members' copies. A student's own version confirms
 * fewer uploads than fit whatever it holds (the route bounds them).
 */
export function versionSizeRefusal(members: number | undefined, claims: number): Refusal | undefined {
  if (members === undefined) return undefined;
  if (members > MAX_TEAM_MEMBERS) return teamTooLargeToSubmit({ members, limit: MAX_TEAM_MEMBERS });
  const limit = versionClaimsBudget(members);
  return claims > limit ? tooManyUploadsForTeam({ members, limit }) : undefined;
}
