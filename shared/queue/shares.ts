/**
 * A submission's share of the grading queue: which lane its job takes, which queued version of
 * the same owner and gradeable it supersedes, and the change to its student's count of jobs
 * queued or being graded (MAX_QUEUED_JOBS_PER_STUDENT), all written in the submission's
 * transaction. Only a student's own submission counts and can be superseded: staff submitting for a
 * student, and regrades, ask for exactly that version to be graded.
 */
import { countLoad, giveUpSuperseded, releaseLoad, supersedeJob } from '#shared/data/jobs.ts';
import type { VersionSummary } from '#shared/data/submissions.ts';
import type { TransactItem } from '#shared/data/transactions.ts';
import { laneFor } from './lanes.ts';
import { shardOf } from './tickets.ts';

export interface QueueShare {
  readonly lane: number;
  /** The newest version still queued, which the new one supersedes (if its job allows: supersedeJob). */
  readonly supersede?: VersionSummary;
  /** The submitting student's count as read and its change (none for staff submitting for a student). */
  readonly load?: { readonly userId: string; readonly read: number; readonly delta: number };
}

/**
 * Pure. `counted` is the submitting student when they submit their own (or their team's) version;
 * `skip` the versions found not to be supersedable (a regrade's or staff's job, queued still);
 * `courseBurst` the course's first-lane submissions this minute, this one included, and COURSE_BURST_PER_MINUTE.
 */
export function queueShare(
  versions: readonly VersionSummary[],
  counted: { userId: string; inFlight: number } | undefined,
  skip: ReadonlySet<number>,
  courseBurst?: { readonly count: number; readonly limit: number },
): QueueShare {
  const supersede = [...versions].reverse().find((version) => version.state === 'queued' && !skip.has(version.version));
  // Superseding one's own queued job frees its place in the count in the same write.
  const freed = supersede && counted && supersede.submittedBy === counted.userId ? 1 : 0;
  return {
    lane: laneFor({
      othersInFlight: counted ? counted.inFlight - freed : 0,
      ...(courseBurst ? { courseBurst: courseBurst.count, burstLimit: courseBurst.limit } : {}),
    }),
    ...(supersede ? { supersede } : {}),
    ...(counted ? { load: { userId: counted.userId, read: counted.inFlight, delta: 1 - freed } } : {}),
  };
}

/** The student's jobs queued or being graded once this submission is queued (none: not counted). */
export const loadAfter = (share: QueueShare): number | undefined => (share.load ? share.load.read + share.load.delta : undefined);

/** The share's writes in the submission's transaction, each named for what its failed condition means. */
export interface QueueShareItems {
  /** The student's count as read, moved on. */
  readonly load?: TransactItem;
  /** The superseded job, provided it is still queued and the student's own. */
  readonly supersede?: TransactItem;
  /** The superseded job's ticket, given up. */
  readonly giveUp?: TransactItem;
  /** A team mate's count, freed by superseding their job (unconditional). */
  readonly release?: TransactItem;
}

export function queueShareItems(share: QueueShare): QueueShareItems {
  const { load, supersede } = share;
  return {
    ...(load ? { load: countLoad(load.userId, load.read, load.delta) } : {}),
    ...(supersede
      ? {
          supersede: supersedeJob(supersede.ticket, supersede.submittedBy),
          giveUp: giveUpSuperseded(shardOf(supersede.ticket), supersede.ticket),
          // Another student's job (a team mate's) frees their count; one's own is in the change above.
          ...(supersede.submittedBy !== load?.userId ? { release: releaseLoad(supersede.submittedBy) } : {}),
        }
      : {}),
  };
}
