/**
 * How long a queued version will wait before its grading starts, estimated from the jobs graded
 * lately (shared/data/job-times.ts): each waits for the jobs ahead of it, which the workers grade
 * as many at a time as they graded lately.
 */
import type { JobTime } from '#shared/data/job-times.ts';

/** Jobs that ended longer ago than this say nothing of the queue now: without any, there is no estimate. */
export const RECENT_JOBS_MS = 30 * 60 * 1000;

/**
 * The estimate in whole seconds for a version at `position` (1-based) in the queue: position × the
 * recent jobs' mean time ÷ the capacity they were graded with, the jobs at once over the time they
 * span (their summed times over the span from the first one's claim to the last one's end, at
 * least 1), which counts the workers actually running rather than those allowed. Null when the
 * version is not queued or no job ended lately.
 */
export function queueEtaSeconds(position: number, times: readonly JobTime[] | undefined, now: Date): number | null {
  if (position < 1) return null;
  const recent = (times ?? []).filter((time) => time.seconds >= 0 && now.getTime() - time.endedAt <= RECENT_JOBS_MS);
  if (recent.length === 0) return null;
  const total = recent.reduce((sum, time) => sum + time.seconds, 0);
  const mean = total / recent.length;
  const firstClaim = Math.min(...recent.map((time) => time.endedAt - time.seconds * 1000));
  const lastEnd = Math.max(...recent.map((time) => time.endedAt));
  const spanSeconds = (lastEnd - firstClaim) / 1000;
  const capacity = spanSeconds > 0 ? Math.max(1, total / spanSeconds) : 1;
  return Math.round((position * mean) / capacity);
}
