/**
 * The course jobs' sweep: a job is written first and its message sent after, so a request that
 * dies between the two (a time-out, a crash, the queue refusing) leaves it queued with no message;
 * a worker that dies leaves it running under a lease that runs out, its message possibly gone
 * (dead-lettered after its last receive). A schedule (every few minutes in AWS, on an interval in
 * `npm start`) finds the unfinished jobs through their index and sends such a job's message again,
 * counting each resend on the job; one tried too often ends failed, with why. A message sent twice
 * is harmless: a delivery claims a job only while it is queued or its lease ran out, and ends it
 * only while its own claim holds.
 */
import { failUnfinished, recordResend, type UnfinishedCourseJob } from '#shared/data/course-jobs.ts';
import { logger } from '#shared/logger.ts';
import { SUMMARIES_JOB_MAX_DELIVERIES } from './queue.ts';

/**
 * How long a queued job waits before its first resend: far beyond a request's time limit (25 s;
 * API Gateway ends it at 30 s), after which its own send has happened or never will. A job whose
 * message is merely waiting in the queue behind others gets a copy, which the worker ignores.
 */
export const SWEEP_GRACE_MS = 2 * 60_000;
/** Each further resend waits this many times longer than the one before (2, 8, 32 minutes…). */
const SWEEP_BACKOFF = 4;
/** Resends before a job the sweep would send again ends failed instead. */
export const MAX_COURSE_JOB_RESENDS = 3;
/** How often AWS's schedule sweeps, in minutes. */
export const SWEEP_RATE_MINUTES = 5;

/** A kind of course job the sweep looks after: where its unfinished jobs are, how its message is sent, what a failed one says. */
export interface CourseJobKind<Job extends UnfinishedCourseJob = UnfinishedCourseJob> {
  readonly kind: string;
  unfinished(): Promise<Job[]>;
  send(job: Job): Promise<void>;
  /** Why a job failed after every delivery was claimed and stopped, or its message lost every time. */
  readonly reasons: { readonly abandoned: string; readonly neverStarted: string };
}

export type SweepStep = 'wait' | 'resend' | 'abandoned' | 'never-started';

/**
 * What the sweep does with an unfinished job now. Pure. A running job whose lease holds is its
 * worker's; one whose lease ran out after the queue's every delivery is abandoned. Otherwise a
 * resend is due once the job (or its last resend) is older than the grace, longer after each
 * resend; past MAX_COURSE_JOB_RESENDS, a due resend fails the job instead.
 */
export function sweepStep(job: UnfinishedCourseJob, now: Date): SweepStep {
  const at = now.getTime();
  if (job.state === 'running') {
    if ((job.leaseUntil ?? 0) >= at) return 'wait';
    if (job.attempts >= SUMMARIES_JOB_MAX_DELIVERIES) return 'abandoned';
  }
  const since = job.resentAt ?? Date.parse(job.createdAt);
  if (at - since < SWEEP_GRACE_MS * SWEEP_BACKOFF ** job.resends) return 'wait';
  if (job.resends < MAX_COURSE_JOB_RESENDS) return 'resend';
  return job.state === 'running' ? 'abandoned' : 'never-started';
}

/** What one sweep did, by kind. */
export interface SweepReport {
  readonly unfinished: number;
  readonly resent: number;
  readonly failed: number;
}

/**
 * One sweep over every kind: each unfinished job's step, each write conditioned on the job as read
 * (a delivery that claims or ends it meanwhile wins, and the sweep leaves it). A resend is counted
 * before it is sent, so a send that fails costs the job a try rather than looping unseen.
 */
export async function sweepCourseJobs(kinds: readonly CourseJobKind[], now = new Date()): Promise<Record<string, SweepReport>> {
  const reports: Record<string, SweepReport> = {};
  for (const kind of kinds) reports[kind.kind] = await sweepKind(kind, now);
  return reports;
}

async function sweepKind<Job extends UnfinishedCourseJob>(kind: CourseJobKind<Job>, now: Date): Promise<SweepReport> {
  const jobs = await kind.unfinished();
  let resent = 0;
  let failed = 0;
  for (const job of jobs) {
    const step = sweepStep(job, now);
    if (step === 'wait') continue;
    if (step === 'resend') {
      if (!(await recordResend(job, now))) continue;
      await kind.send(job);
      resent++;
      continue;
    }
    const message = step === 'abandoned' ? kind.reasons.abandoned : kind.reasons.neverStarted;
    if (await failUnfinished(job, { at: now.toISOString(), message })) {
      logger.warn({
        message: 'Course job failed by the sweep',
        kind: kind.kind,
        job: job.key.entry,
        step,
        attempts: job.attempts,
        resends: job.resends,
      });
      failed++;
    }
  }
  return { unfinished: jobs.length, resent, failed };
}
