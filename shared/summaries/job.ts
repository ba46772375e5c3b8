/**
 * Summaries jobs: generating the summaries of a large course leaves the request.
 * `POST …/reports/summaries` generates a course of fewer than SUMMARIES_JOB_MIN_USERS members in the
 * request, answering the generation's report as before; a larger course gets a job, queued on the
 * summaries queue and answered at once as a job object, which `GET …/reports/summaries/jobs/{job_id}`
 * reads again. The summaries worker generates it page by page of members, recording its progress.
 * The nightly run is not a job: it generates every course in its own invocation, as before, but
 * leaves a course whose job is under way to that job.
 */
import { randomBytes } from 'node:crypto';
import { summariesJobMinUsers } from '#shared/config.ts';
import type { Course } from '#shared/courses/course.ts';
import { courseRef } from '#shared/data/courses.ts';
import { enrollmentsOfCourse } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import {
  claimSummariesJob,
  createSummariesJob,
  finishSummariesJob,
  releaseSummariesJobSlot,
  setSummariesJobProgress,
  summariesJobRef,
  summariesJobSlotRef,
  SUMMARIES_JOB_KIND,
  unfinishedSummariesJobs,
  type SummariesJobRecord,
  type SummariesJobSlot,
  type UnfinishedSummariesJob,
} from '#shared/data/summaries.ts';
import { isSummariesJobId } from '#shared/ids.ts';
import { logger } from '#shared/logger.ts';
import { summariesJobNotFound } from './failures.ts';
import { generateAllSummaries, generateSummaries, type GenerationReport, type NightlyReport } from './generate.ts';
import { sendSummariesJob, SUMMARIES_JOB_MAX_DELIVERIES, type SummariesJobMessage } from './queue.ts';
import type { CourseJobKind } from './sweep.ts';

/** A new job id: `sj_` and 128 random bits (see SUMMARIES_JOB_ID in shared/ids.ts). */
export const newSummariesJobId = (): string => `sj_${randomBytes(16).toString('base64url')}`;

/** The worker's time limit in AWS (Lambda's maximum): a delivery holds its job this long. */
export const SUMMARIES_JOB_LEASE_SECONDS = 15 * 60;
/**
 * How long a job holds its course's slot at most, in case its worker never ends it: three
 * deliveries of its message, each up to the lease and the queue's visibility time-out.
 */
export const SUMMARIES_JOB_SLOT_SECONDS = 60 * 60;

const finished = (state: SummariesJobRecord['state']) => state === 'done' || state === 'failed';

/**
 * A job whose every delivery ended without finishing it (the worker was stopped, e.g. by its time
 * limit): its lease ran out and no delivery is left, so it never will. Pure.
 */
export const isAbandoned = (job: SummariesJobRecord, now: Date): boolean =>
  job.state === 'running' && (job.leaseUntil ?? 0) < now.getTime() && job.attempts >= SUMMARIES_JOB_MAX_DELIVERIES;

const ABANDONED =
  'The summaries worker stopped before finishing this job, on every delivery; the summaries generated before stay current. Ask again to retry.';

/** The sweep's view of summaries jobs (sweep.ts): their index, their message, why one failed. */
export const summariesJobSweep: CourseJobKind<UnfinishedSummariesJob> = {
  kind: SUMMARIES_JOB_KIND,
  unfinished: unfinishedSummariesJobs,
  send: ({ term, course, jobId }) => sendSummariesJob({ term, course, jobId }),
  reasons: {
    abandoned: ABANDONED,
    neverStarted:
      'The summaries worker never started this job: its message was lost on every try; the summaries generated before stay current. Ask again to retry.',
  },
};

/** Queued or running, and not abandoned: the job will make a new generation. Pure. */
const underWay = (job: SummariesJobRecord, now: Date): boolean => !finished(job.state) && !isAbandoned(job, now);

/** The job holding the course's slot, while the slot holds (`held`); the job is undefined when its record is gone. */
async function slotHolder(course: Pick<Course, 'term' | 'course'>, slot: SummariesJobSlot | undefined, now: Date) {
  if (!slot || slot.until <= now.getTime()) return { held: false } as const;
  const { job } = await getItems({ job: summariesJobRef(course.term, course.course, slot.jobId) });
  return { held: true, jobId: slot.jobId, job } as const;
}

/** The job as clients see it now: an abandoned job reads as failed. Pure. */
const asSeen = (job: SummariesJobRecord, now: Date): SummariesJobRecord =>
  isAbandoned(job, now) ? { ...job, state: 'failed', message: ABANDONED } : job;

/** The job object, as both routes answer it. Pure. */
export function summariesJob(record: SummariesJobRecord) {
  const message =
    record.state === 'failed'
      ? (record.message ?? 'The summaries could not be generated.')
      : record.state === 'done'
        ? `Generated ${record.summaries ?? 0} ${record.summaries === 1 ? 'summary' : 'summaries'}.`
        : record.state === 'running'
          ? `Generating the summaries: ${record.done} of ${record.total} members done.`
          : 'Waiting on the summaries queue.';
  return {
    job_id: record.jobId,
    course: `${record.term}/${record.course}`,
    state: record.state,
    progress: { done: record.done, total: record.total },
    requested_by: record.requestedBy,
    created_at: record.createdAt,
    started_at: record.startedAt ?? null,
    finished_at: record.finishedAt ?? null,
    summaries: record.summaries ?? null,
    generated_at: record.generatedAt ?? null,
    generation: record.generation ?? null,
    message,
  } as const;
}

export type SummariesJob = ReturnType<typeof summariesJob>;

/** What the POST reads with the token check: the course's slot (the job under way, if any). */
export const requestSummariesReads = ({ semester, course }: { semester: string; course: string }) => ({
  slot: summariesJobSlotRef(semester, course),
});

/**
 * `POST …/reports/summaries`: the job under way for the course, if any; else a small course
 * generated in the request (the generation's report, as before), or a new job, queued.
 */
export async function requestSummaries(
  context: { caller: { userId: string }; course: Course; slot: SummariesJobSlot | undefined },
  now = new Date(),
): Promise<GenerationReport | SummariesJob> {
  const { course } = context;
  let slot = context.slot;
  for (let attempt = 0; attempt < 3; attempt++) {
    let replaces: string | undefined;
    const holder = await slotHolder(course, slot, now);
    if (holder.held) {
      const { job } = holder;
      if (job && underWay(job, now)) return summariesJob(job);
      replaces = holder.jobId;
      if (job && isAbandoned(job, now)) {
        await finishSummariesJob(
          course.term,
          course.course,
          job.jobId,
          { state: 'failed', at: now.toISOString(), message: ABANDONED },
          job.attempts,
        );
      }
    }
    const enrollments = await enrollmentsOfCourse(course.term, course.course);
    if (enrollments.length < summariesJobMinUsers()) return generateSummaries(course, now, { enrollments });
    const record: SummariesJobRecord = {
      jobId: newSummariesJobId(),
      term: course.term,
      course: course.course,
      state: 'queued',
      done: 0,
      total: enrollments.length,
      requestedBy: context.caller.userId,
      createdAt: now.toISOString(),
      attempts: 0,
    };
    const until = now.getTime() + SUMMARIES_JOB_SLOT_SECONDS * 1000;
    if (await createSummariesJob(record, { until, now: now.getTime(), ...(replaces ? { replaces } : {}) })) {
      await queue(record);
      return summariesJob(record);
    }
    // Another request took the slot meanwhile: answer its job.
    slot = (await getItems({ slot: summariesJobSlotRef(course.term, course.course) })).slot;
  }
  throw new Error('Could not start a summaries job: the course slot kept changing');
}

/** Sends the job's message; a job that cannot be queued fails at once and frees its slot. */
async function queue(record: SummariesJobRecord): Promise<void> {
  const { term, course, jobId } = record;
  try {
    await sendSummariesJob({ term, course, jobId });
  } catch (error) {
    await finishSummariesJob(
      term,
      course,
      jobId,
      { state: 'failed', at: new Date().toISOString(), message: 'The job could not be queued.' },
      undefined,
    ).catch(() => undefined);
    await releaseSummariesJobSlot(term, course, jobId).catch(() => undefined);
    throw error;
  }
}

/** Whether a summaries job of the course is queued or running (not abandoned): it makes a new generation anyway. */
async function jobUnderWay(course: Course, now: Date): Promise<boolean> {
  const { slot } = await getItems({ slot: summariesJobSlotRef(course.term, course.course) });
  const holder = await slotHolder(course, slot, now);
  return holder.held && holder.job !== undefined && underWay(holder.job, now);
}

/** The nightly run (the schedule, `npm run admin -- nightly-summaries`): every unarchived course without a job under way. */
export const nightlySummaries = (now = new Date()): Promise<NightlyReport> =>
  generateAllSummaries({ underWay: (course) => jobUnderWay(course, now) });

/** What the job route reads with the token check: the job. */
export const summariesJobReads = ({ semester, course, job_id }: { semester: string; course: string; job_id: string }) => ({
  job: summariesJobRef(semester, course, job_id),
});

/** `GET …/reports/summaries/jobs/{job_id}`: a job of this course (its partition), or not found. */
export function summariesJobStatus(jobId: string, job: SummariesJobRecord | undefined, now = new Date()): SummariesJob {
  if (!job) throw summariesJobNotFound({ job_id: jobId });
  return summariesJob(asSeen(job, now));
}

/**
 * The summaries worker, for one delivery of a job's message. A copy of a message already acted on
 * (the job finished, or another delivery holds it) is done with at once. A generation that fails
 * ends the job as failed with a message (the summaries current before stay current); the error
 * is thrown only when even that could not be recorded, for the queue to deliver the message again.
 */
export async function runSummariesJob(message: SummariesJobMessage, now = new Date()): Promise<void> {
  const { term, course: code, jobId } = message;
  if (!isSummariesJobId(jobId)) {
    logger.warn({ message: 'Summaries job message with a malformed id', jobId: String(jobId).slice(0, 64) });
    return;
  }
  const { job, course } = await getItems({ job: summariesJobRef(term, code, jobId), course: courseRef(term, code) });
  if (!job || finished(job.state)) return;
  const leaseUntil = now.getTime() + SUMMARIES_JOB_LEASE_SECONDS * 1000;
  const lease = await claimSummariesJob(term, code, jobId, { now, leaseUntil });
  if (lease === undefined) return;
  let outcome: Parameters<typeof finishSummariesJob>[3];
  if (!course) {
    outcome = { state: 'failed', at: new Date().toISOString(), message: 'The course no longer exists.' };
  } else {
    try {
      const report = await generateSummaries(course, new Date(), {
        onProgress: (progress) => setSummariesJobProgress(term, code, jobId, progress),
      });
      outcome = {
        state: 'done',
        at: new Date().toISOString(),
        summaries: report.summaries,
        generatedAt: report.generated_at,
        generation: report.generation,
      };
    } catch (error) {
      logger.error({ message: 'Summaries job failed', course: `${term}/${code}`, jobId, error: error as Error });
      outcome = {
        state: 'failed',
        at: new Date().toISOString(),
        message: `The summaries could not be generated (job ${jobId}); the summaries generated before stay current. Ask again to retry.`,
      };
    }
  }
  // A delivery whose lease was taken over leaves the job, and the course's slot, to the one that took it.
  if (await finishSummariesJob(term, code, jobId, outcome, lease)) await releaseSummariesJobSlot(term, code, jobId);
}
