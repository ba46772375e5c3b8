/**
 * The course job sweeper on the local API (the same function the AWS schedule invokes, here on a
 * short interval): summaries jobs and gradebook exports left unfinished by a lost message or a dead
 * worker are sent again and end; copies of a message run nothing twice; a job tried too often ends
 * failed, saying why. Jobs are written through the data layer as a function that died would leave
 * them (its message never sent), and read over HTTP.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courseId } from '#shared/courses/course.ts';
import { dynamo } from '#shared/data/client.ts';
import { courseRef } from '#shared/data/courses.ts';
import { createGradebookExport, gradebookExportRef, unfinishedGradebookExports } from '#shared/data/gradebook-exports.ts';
import { getItems } from '#shared/data/items.ts';
import {
  claimSummariesJob,
  createSummariesJob,
  finishSummariesJob,
  summariesJobRef,
  unfinishedSummariesJobs,
  type SummariesJobRecord,
} from '#shared/data/summaries.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { gradebookExportSweep, newGradebookExportId } from '#shared/gradebook/exports.ts';
import { newSummariesJobId, runSummariesJob, summariesJobSweep } from '#shared/summaries/job.ts';
import { SUMMARIES_JOB_MAX_DELIVERIES } from '#shared/summaries/queue.ts';
import { MAX_COURSE_JOB_RESENDS, SWEEP_GRACE_MS } from '#shared/summaries/sweep.ts';
import { createSimilarityRun, similarityRunRef, unfinishedSimilarityRuns } from '#shared/data/similarity-runs.ts';
import { newSimilarityRunId } from '#shared/similarity/runs.ts';
import { similarityRunSweep } from '#shared/similarity/sweep.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
const minute = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const stranded = () => ago(SWEEP_GRACE_MS + minute);

beforeAll(async () => {
  // The sweep runs on its own, as in npm start, only more often.
  api = await startTestApi({ workers: 0, courseJobSweepMs: 200 });
  world = await createCourseWorld(api);
}, 120_000);
afterAll(() => api.close());

/** A summaries job as a request that died after writing it leaves it: its message never sent. */
async function summariesJob(fields: Partial<SummariesJobRecord> & { resends?: number; resentAt?: number } = {}) {
  const { resends, resentAt, ...record } = fields;
  const job: SummariesJobRecord = {
    jobId: newSummariesJobId(),
    term: world.course.term,
    course: world.course.course,
    state: 'queued',
    done: 0,
    total: 0,
    requestedBy: world.users.instructor.userId,
    createdAt: stranded(),
    attempts: 0,
    ...record,
  };
  // Its course's slot is left free: the jobs here are the sweep's, not the route's.
  expect(await createSummariesJob(job, { until: 0, now: Date.now() })).toBe(true);
  if (resends !== undefined)
    await resent({ courseId: `${courseId(job.term, job.course)}#jobs`, entry: `job#${job.jobId}` }, resends, resentAt);
  return job;
}

/** An export as a request that died after writing it leaves it. */
async function gradebookExport(fields: { createdAt?: string; resends?: number; resentAt?: number } = {}) {
  const record = {
    exportId: newGradebookExportId(),
    term: world.course.term,
    course: world.course.course,
    format: 'csv' as const,
    state: 'queued' as const,
    requestedBy: world.users.instructor.userId,
    createdAt: fields.createdAt ?? stranded(),
    attempts: 0,
  };
  await createGradebookExport(record);
  if (fields.resends !== undefined)
    await resent(
      { courseId: `${courseId(record.term, record.course)}#exports`, entry: `export#${record.exportId}` },
      fields.resends,
      fields.resentAt,
    );
  return record;
}

/** What earlier sweeps leave on a job: their resends, the last one at `at`. */
const resent = (key: Record<string, string>, resends: number, at = Date.now() - 24 * 60 * minute) =>
  dynamo().send(
    new UpdateCommand({
      TableName: tableName(tables.summaries),
      Key: key,
      UpdateExpression: 'SET resends = :resends, resentAt = :at',
      ExpressionAttributeValues: { ':resends': resends, ':at': at },
    }),
  );

const stored = async (jobId: string) => (await getItems({ job: summariesJobRef(world.course.term, world.course.course, jobId) })).job;
const jobAnswer = async (jobId: string) => {
  const answer = await api.get(`${base()}/reports/summaries/jobs/${jobId}`, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { state: string; message: string; finished_at: string | null };
};
const exportAnswer = async (exportId: string) => {
  const answer = await api.get(`${base()}/gradebook/exports/${exportId}`, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { status: string; message: string };
};

/** Reads until `ended` holds, over HTTP; the last answer. */
async function until<T>(read: () => Promise<T>, ended: (answer: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const answer = await read();
    if (ended(answer)) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the job did not end');
}
const jobEnded = (jobId: string) =>
  until(
    () => jobAnswer(jobId),
    (job) => job.state === 'done' || job.state === 'failed',
  );
const exportEnded = (exportId: string) =>
  until(
    () => exportAnswer(exportId),
    (record) => record.status === 'done' || record.status === 'failed',
  );

/** Until the local summaries queue holds nothing more (copies included). */
const queueDrained = () =>
  until(
    async () => api.server.summariesQueue.depth(),
    (depth) => depth === 0,
  );

const unfinishedIds = async () => [
  ...(await unfinishedSummariesJobs()).map((job) => job.jobId),
  ...(await unfinishedGradebookExports()).map((record) => record.exportId),
];

describe('the course job sweep', () => {
  it('sends a job and an export whose messages were never sent again, on its own, and both end done', async () => {
    const job = await summariesJob();
    const record = await gradebookExport();
    expect(await unfinishedIds()).toEqual(expect.arrayContaining([job.jobId, record.exportId]));
    expect((await jobEnded(job.jobId)).state).toBe('done');
    expect((await exportEnded(record.exportId)).status).toBe('done');
    expect(await stored(job.jobId)).toMatchObject({ state: 'done', attempts: 1, finishedAt: expect.any(String) });
    const { record: exported } = await getItems({ record: gradebookExportRef(record.term, record.course, record.exportId) });
    expect(exported).toMatchObject({ state: 'done', attempts: 1 });
    // Ended, they leave the index: the next sweep reads neither.
    expect(await unfinishedIds()).not.toEqual(expect.arrayContaining([job.jobId]));
    expect(await unfinishedIds()).not.toEqual(expect.arrayContaining([record.exportId]));
  });

  it('leaves a job within its grace, and a running one whose lease holds, as they are', async () => {
    const fresh = await summariesJob({ createdAt: ago(SWEEP_GRACE_MS / 4) });
    const held = await summariesJob({ state: 'running', attempts: 1, startedAt: ago(minute), leaseUntil: Date.now() + 10 * minute });
    await api.server.courseJobSweep.run();
    await api.server.courseJobSweep.run();
    expect(await stored(fresh.jobId)).toEqual({ ...fresh });
    expect(await stored(held.jobId)).toEqual({ ...held });
    expect(await unfinishedIds()).toEqual(expect.arrayContaining([fresh.jobId, held.jobId]));
    // Ended here, so that no later sweep runs them beside the other tests' jobs.
    const { term, course } = world.course;
    const at = new Date().toISOString();
    expect(await finishSummariesJob(term, course, fresh.jobId, { state: 'failed', at, message: 'ended by the test' }, undefined)).toBe(
      true,
    );
    expect(await finishSummariesJob(term, course, held.jobId, { state: 'failed', at, message: 'ended by the test' }, 1)).toBe(true);
  });

  it('sends a running job whose lease ran out again: another delivery takes it over and ends it', async () => {
    const job = await summariesJob({ state: 'running', attempts: 1, startedAt: ago(20 * minute), leaseUntil: Date.now() - 1_000 });
    expect((await jobEnded(job.jobId)).state).toBe('done');
    expect(await stored(job.jobId)).toMatchObject({ state: 'done', attempts: 2 });
  });

  it('runs a job once however many copies of its message arrive with the sweep’s, and ends it once', async () => {
    const { term, course } = world.course;
    const rounds = 10;
    for (let round = 0; round < rounds; round++) {
      const job = await summariesJob();
      const message = { term, course, jobId: job.jobId };
      api.server.summariesQueue.redeliver(message);
      api.server.summariesQueue.redeliver(message);
      await Promise.all([
        api.server.courseJobSweep.run(),
        api.server.courseJobSweep.run(),
        ...[1, 2, 3].map(() => runSummariesJob(message)),
      ]);
      expect((await jobEnded(job.jobId)).state, `round ${round}`).toBe('done');
      await queueDrained();
      const ended = await stored(job.jobId);
      // One claim ran it; at most one resend was counted, however many sweeps read it.
      expect(ended, `round ${round}`).toMatchObject({ state: 'done', attempts: 1 });
      expect([ended?.done, ended?.summaries], `round ${round}`).toEqual([ended?.total, ended?.total]);
      const { course: current } = await getItems({ course: courseRef(term, course) });
      expect(current?.summaries?.generation, `round ${round}`).toBe(ended?.generation);
      // Copies after its end change nothing: it is neither run nor ended again.
      api.server.summariesQueue.redeliver(message);
      await Promise.all([api.server.courseJobSweep.run(), runSummariesJob(message), runSummariesJob(message)]);
      await queueDrained();
      expect(await stored(job.jobId), `round ${round}`).toEqual(ended);
    }
  });

  it('ends a job only under the claim that holds it: a delivery whose lease was taken over records nothing', async () => {
    const { term, course } = world.course;
    const job = await summariesJob({ createdAt: ago(SWEEP_GRACE_MS / 4) });
    const stale = await claimSummariesJob(term, course, job.jobId, {
      now: new Date(Date.now() - 20 * minute),
      leaseUntil: Date.now() - 5 * minute,
    });
    const current = await claimSummariesJob(term, course, job.jobId, { now: new Date(), leaseUntil: Date.now() + 10 * minute });
    expect([stale, current]).toEqual([1, 2]);
    const at = new Date().toISOString();
    expect(await finishSummariesJob(term, course, job.jobId, { state: 'failed', at, message: 'stale' }, stale)).toBe(false);
    expect((await jobAnswer(job.jobId)).state).toBe('running');
    expect(await finishSummariesJob(term, course, job.jobId, { state: 'failed', at, message: 'current' }, current)).toBe(true);
    expect(await jobAnswer(job.jobId)).toMatchObject({ state: 'failed', message: 'current' });
    expect(await finishSummariesJob(term, course, job.jobId, { state: 'failed', at, message: 'again' }, current)).toBe(false);
  });

  it('fails a job and an export tried too often, saying why over HTTP, and they leave the index', async () => {
    const lost = await summariesJob({ createdAt: ago(6 * 60 * minute), resends: MAX_COURSE_JOB_RESENDS });
    const lostExport = await gradebookExport({ createdAt: ago(6 * 60 * minute), resends: MAX_COURSE_JOB_RESENDS });
    const abandoned = await summariesJob({
      state: 'running',
      attempts: SUMMARIES_JOB_MAX_DELIVERIES,
      createdAt: ago(50 * minute),
      startedAt: ago(49 * minute),
      leaseUntil: Date.now() - 1_000,
    });
    await api.server.courseJobSweep.run();
    expect(await jobAnswer(lost.jobId)).toMatchObject({
      state: 'failed',
      message: summariesJobSweep.reasons.neverStarted,
      finished_at: expect.any(String),
    });
    expect(await exportAnswer(lostExport.exportId)).toMatchObject({ status: 'failed', message: gradebookExportSweep.reasons.neverStarted });
    expect(await jobAnswer(abandoned.jobId)).toMatchObject({ state: 'failed', message: summariesJobSweep.reasons.abandoned });
    for (const jobId of [lost.jobId, abandoned.jobId])
      expect(await stored(jobId)).toMatchObject({ state: 'failed', attempts: expect.any(Number) });
    expect(await stored(abandoned.jobId)).toMatchObject({ attempts: SUMMARIES_JOB_MAX_DELIVERIES });
    const left = await unfinishedIds();
    for (const id of [lost.jobId, lostExport.exportId, abandoned.jobId]) expect(left).not.toContain(id);
  });

  it('fails a similarity run whose message was lost on every try, saying why, and it leaves the index', async () => {
    const run = {
      runId: newSimilarityRunId(),
      term: world.course.term,
      course: world.course.course,
      gradeableId: 'never-submitted',
      state: 'queued' as const,
      requestedBy: world.users.instructor.userId,
      createdAt: ago(6 * 60 * minute),
      attempts: 0,
    };
    await createSimilarityRun(run);
    expect((await unfinishedSimilarityRuns()).map(({ runId }) => runId)).toContain(run.runId);
    await resent(
      { courseId: `${courseId(run.term, run.course)}#similarity`, entry: `similarity-run#${run.runId}` },
      MAX_COURSE_JOB_RESENDS,
    );
    await api.server.courseJobSweep.run();
    const { stored: ended } = await getItems({ stored: similarityRunRef(run.term, run.course, run.runId) });
    expect(ended).toMatchObject({ state: 'failed', message: similarityRunSweep.reasons.neverStarted });
    expect((await unfinishedSimilarityRuns()).map(({ runId }) => runId)).not.toContain(run.runId);
  });

  it('never fails a job a delivery claimed meanwhile: the sweep’s write holds only while the job is as it read it', async () => {
    const { term, course } = world.course;
    const outcomes = { done: 0, failed: 0 };
    const rounds = 16;
    for (let round = 0; round < rounds; round++) {
      // The sweep fails this job (its resends spent) unless the delivery racing it claims it first.
      const job = await summariesJob({
        state: 'running',
        attempts: SUMMARIES_JOB_MAX_DELIVERIES - 1,
        createdAt: ago(6 * 60 * minute),
        startedAt: ago(5 * 60 * minute),
        leaseUntil: Date.now() - 1_000,
        resends: MAX_COURSE_JOB_RESENDS,
      });
      await Promise.all([api.server.courseJobSweep.run(), runSummariesJob({ term, course, jobId: job.jobId })]);
      const ended = await stored(job.jobId);
      if (ended?.state === 'done') {
        outcomes.done++;
        expect(ended, `round ${round}`).toMatchObject({ attempts: SUMMARIES_JOB_MAX_DELIVERIES, generation: expect.any(String) });
        expect(ended.message, `round ${round}`).toBeUndefined();
      } else {
        outcomes.failed++;
        // Failed by the sweep before any delivery claimed it: nothing ran.
        expect(ended, `round ${round}`).toMatchObject({
          state: 'failed',
          attempts: SUMMARIES_JOB_MAX_DELIVERIES - 1,
          message: summariesJobSweep.reasons.abandoned,
        });
        expect(ended?.generation, `round ${round}`).toBeUndefined();
      }
    }
    console.info(
      `sweep against a delivery, ${rounds} rounds: ${outcomes.done} run by the delivery, ${outcomes.failed} failed by the sweep first`,
    );
  });
});
