/** Which lane of the queue a new job takes; how the lanes order the queue is in tickets.ts. */
import { LANES } from '#shared/data/jobs.ts';

/**
 * The lane of a new job: regrades last; a student's own submission by what they have queued or
 * being graded already, and by its course's first-lane submissions this minute (`courseBurst`,
 * against `burstLimit`): beyond the limit a course's further first jobs wait behind other courses'
 * first ones, so one course's deadline rush does not push a small course's new submission back,
 * and still ahead of any student's further jobs, so a flood by one student of the rushing course
 * does not push their classmates back either.
 */
export function laneFor(job: { regrade?: boolean; othersInFlight: number; courseBurst?: number; burstLimit?: number }): number {
  if (job.regrade) return LANES.regrade;
  if (job.othersInFlight > 0) return LANES.more;
  const rushing = job.courseBurst !== undefined && job.burstLimit !== undefined && job.courseBurst > job.burstLimit;
  return rushing ? LANES.rush : LANES.first;
}
