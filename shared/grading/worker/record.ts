import { tokenIssuer } from '#shared/config.ts';
import { recordJobTime } from '#shared/data/job-times.ts';
import { finishJob, recordJobCommit, releaseLoad } from '#shared/data/jobs.ts';
import { countRegradeOutcome } from '#shared/data/regrades.ts';
import { putResultsItem } from '#shared/data/results.ts';
import { recordVersionCommit, setVersionState, type GradingResults, type SubmissionKey } from '#shared/data/submissions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import type { TestCase } from '#shared/gradeables/gradeable.ts';
import { logger } from '#shared/logger.ts';
import { ltiScoreOutbox } from '#shared/lti/score-queue.ts';
import { eventOutbox, gradingOutcomeEvent } from '#shared/webhooks/publish.ts';
import { environmentWithBuild, gradingRecordPayload, type RecordEnvironment } from '../grading-record.ts';
import type { RunResult } from '../runner-protocol.ts';
import { signRecord } from '../sign-record.ts';
import type { ClaimedJob } from '#shared/queue/claim.ts';
import { fitResults } from './fit-results.ts';
import type { LeaseHolds } from './lease-holds.ts';
import { failedRun, scoreRun } from './score.ts';

/** What became of a worker's job: none to take, graded, failed, or lost to another worker (nothing recorded). */
export type Outcome = 'idle' | 'graded' | 'failed' | 'lost';

/** A job this worker claimed, and the leases it holds: every record of the job is conditioned on its lease. */
export interface Held {
  readonly job: ClaimedJob;
  readonly holds: LeaseHolds;
}

interface Ending extends Held {
  readonly state: 'graded' | 'failed';
  readonly results: GradingResults;
  readonly points: number;
  /** The points of the hidden test cases, kept apart from `points` (what the student sees until grades are released). */
  readonly hiddenPoints: number;
  /** Why it failed, told to the student. */
  readonly message?: string;
  /** Further writes of the same transaction. */
  readonly also?: Parameters<typeof transactWrite>[0];
  /** The commit graded, told to webhooks. */
  readonly commit?: string;
}

/** What a version's grading record says that is known before it runs. */
export interface RecordBasis {
  readonly team: boolean;
  /** A files version's files by name, each with its SHA-256. */
  readonly files?: Readonly<Record<string, string>>;
  readonly testCasesSha256: string;
  readonly environment: RecordEnvironment;
  /** The course's linked LMS courses that take scores (the course's count): the grade, or the failure, is then sent back, through the outbox. */
  readonly ltiScoreLinks?: number;
}

/** What the job's run gave and what it was to grade. */
interface Ran extends Held {
  readonly run: RunResult;
  readonly testCases: readonly TestCase[];
  /** The commit the version's first grading checked out, if any. */
  readonly recorded: string | undefined;
  /** What its grading record says besides the commit and the result. */
  readonly basis: RecordBasis;
}

/** A run that is scored: graded, or its checkout failed (the student's to fix, told with the score). */
type ScoredRun = Extract<RunResult, { status: 'graded' | 'checkout-failed' }>;

/** Records what the job's run gave: its grade, or why it could not be graded. */
export async function recordRun({ job, holds, run, testCases, recorded, basis }: Ran): Promise<Outcome> {
  if (run.status === 'commit-unreachable') {
    // Never graded on newer files instead: this version fails, the owner's other versions keep theirs.
    logger.warn({
      message: "A version's commit is no longer in its repository",
      ticket: job.ticket,
      gradeableKey: job.gradeableKey,
      commit: recorded,
    });
    return recordFailure({ job, holds, message: run.message, commit: recorded, ltiScoreLinks: basis.ltiScoreLinks ?? 0 });
  }
  if (run.status === 'sandbox-unavailable' || run.status === 'sandbox-failed') {
    logger.error({ message: 'Grading sandbox unavailable: job not graded', ticket: job.ticket, status: run.status, problem: run.message });
    return recordFailure({ job, holds, message: run.message, ltiScoreLinks: basis.ltiScoreLinks ?? 0 });
  }
  return recordGrade({ job, holds, run, testCases, recorded, basis });
}

/** Records the job graded: its run scored (a failed checkout or build scores nothing), the full results beside. */
export async function recordGrade({ job, holds, run, testCases, recorded, basis }: Ran & { run: ScoredRun }): Promise<Outcome> {
  const results = fitResults(scoreRun(job.version, testCases, run));
  const commit = run.status === 'graded' ? run.commit : recorded;
  const stored = { version: job.version, testCases: results.testCases, points: results.visiblePoints };
  // The full results are written with the job's end and their signed record, so a worker that
  // fails (or lost its lease) leaves neither, and no graded version is without its record.
  const gradedAt = new Date();
  const record = await signRecord(
    gradingRecordPayload({
      issuer: tokenIssuer(),
      term: job.term,
      course: job.course,
      gradeableId: job.gradeableId,
      ownerId: job.ownerId,
      team: basis.team,
      graded: basis.files ? { files: basis.files } : commit ? { commit } : {},
      testCasesSha256: basis.testCasesSha256,
      environment: environmentWithBuild(basis.environment, run.status === 'graded' ? run.build : undefined),
      result: stored,
      gradedAt,
    }),
  );
  const full = putResultsItem(job.gradeableKey, job.ownerId, stored, { gradedAt, record });
  // The grade for the linked LMS courses is written with it (the outbox), timestamped with the grade's time.
  const passback = ltiScoreOutbox(
    { term: job.term, course: job.course, ltiScoreLinks: basis.ltiScoreLinks ?? 0 },
    {
      gradeableId: job.gradeableId,
      ownerId: job.ownerId,
      gradedAt,
    },
  );
  const ended = await recordEnd({
    job,
    holds,
    state: 'graded',
    results,
    points: results.visiblePoints,
    hiddenPoints: results.hiddenPoints,
    also: [full, ...passback],
    commit,
  });
  return ended ? 'graded' : 'lost';
}

/**
 * Records the job failed, `message` telling the student why. `ltiScoreLinks`: the course's count
 * of linked LMS courses that take scores, which are told the grading failed (the outbox, as a
 * grade), timestamped with the failure.
 */
export async function recordFailure({
  job,
  holds,
  message,
  commit,
  ltiScoreLinks,
}: Held & { message: string; commit?: string; ltiScoreLinks: number }): Promise<Outcome> {
  const passback = ltiScoreOutbox(
    { term: job.term, course: job.course, ltiScoreLinks },
    { gradeableId: job.gradeableId, ownerId: job.ownerId, gradedAt: new Date() },
  );
  const ended = await recordEnd({
    job,
    holds,
    state: 'failed',
    results: failedRun(job.version, message),
    points: 0,
    hiddenPoints: 0,
    message,
    also: passback,
    commit,
  });
  return ended ? 'failed' : 'lost';
}

/**
 * Records the job's end, provided this worker still holds the lease; the active version's results
 * go onto the submission item too, so `values` stays one read. False when another worker took it.
 */
async function recordEnd({ job, holds, state, results, points, hiddenPoints, message, also = [], commit }: Ending): Promise<boolean> {
  const key: SubmissionKey = { gradeableKey: job.gradeableKey, ownerId: job.ownerId };
  const update = { state, points, hiddenPoints, ...(message ? { message } : {}) };
  // A regrade's job counts towards its progress in the same write, so each job is counted once; a
  // student's own submission stops counting towards their jobs queued or being graded.
  const progress = [
    ...(job.regradeId ? [countRegradeOutcome(job.regradeId, state)] : []),
    ...(job.countedFor ? [releaseLoad(job.countedFor)] : []),
  ];
  // The webhook event is recorded with the outcome itself (the outbox), so it exists exactly when the outcome does.
  const outbox = eventOutbox(gradingOutcomeEvent(job, state, { points, message, commit }));
  if (holds.isLost(job)) return false;
  // Whatever is recorded, the lease needs no renewing any more (a renewal after the end is refused).
  holds.stopRenewing(job);
  for (const activeResults of [results, undefined]) {
    try {
      await transactWrite([
        finishJob(job.ticket, state, job.lease),
        setVersionState(key, job.version, { ...update, activeResults }),
        ...also,
        ...progress,
        ...outbox.items,
      ]);
      await outbox.send();
      await recordTime(job);
      return true;
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.includes(0)) return false; // the lease ran out and another worker took the job
      if (!failed.includes(1)) throw error; // not the active version any more: record it without results
    }
  }
  return false;
}

/**
 * The job's time from its claim to its end, for the queue's estimates (values' queue_eta_seconds):
 * bookkeeping after the end is recorded, so a failure to write it loses one sample, never the grade.
 */
async function recordTime(job: ClaimedJob): Promise<void> {
  const endedAt = Date.now();
  try {
    await recordJobTime(job.ticket, { seconds: Math.max(0, (endedAt - job.claimedAt) / 1000), endedAt });
  } catch (error) {
    logger.warn({ message: "A job's time was not recorded", ticket: job.ticket, error: String(error) });
  }
}

/**
 * Records the commit the checkout resolved on the job and the version, before anything runs,
 * provided this worker still holds the job. Throws (stopping the run; the job is retried) when it
 * lost the lease or the version records another commit: the files would not be the version's.
 */
export async function recordCommit({
  job,
  holds,
  commit,
  recorded,
}: Held & { commit: string; recorded: string | undefined }): Promise<void> {
  if (holds.isLost(job)) throw new Error(`Job ${job.ticket} lost its lease before its commit was recorded`);
  if (commit === recorded) return;
  const key: SubmissionKey = { gradeableKey: job.gradeableKey, ownerId: job.ownerId };
  try {
    await transactWrite([recordJobCommit(job.ticket, job.lease, commit), recordVersionCommit(key, job.version, commit)]);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.includes(0)) throw new Error(`Job ${job.ticket} lost its lease before its commit was recorded`, { cause: error });
    if (failed.includes(1))
      throw new Error(`Job ${job.ticket}: version ${job.version} records another commit than ${commit}`, { cause: error });
    throw error;
  }
}
