/**
 * Generating the summaries of a course of SUMMARIES_JOB_MIN_USERS members or more
 * answers a job object at once and runs on the summaries queue (locally the in-process queue, the
 * same worker function as in AWS); smaller courses are generated in the request, as before. The
 * threshold is lowered here (the course has 6 members) by setting the variable the functions read.
 */
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { courseId } from '#shared/courses/course.ts';
import { dynamo } from '#shared/data/client.ts';
import { courseRef } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { SUMMARIES_JOB_ID } from '#shared/ids.ts';
import { createSummariesJob, summariesJobRef } from '#shared/data/summaries.ts';
import { newSummariesJobId, nightlySummaries } from '#shared/summaries/job.ts';
import { SUMMARIES_JOB_MAX_DELIVERIES } from '#shared/summaries/queue.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { createCourse, createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { daysFromNow } from '../support/dates.ts';
import { putGradedSubmission } from '../support/submissions.ts';
import { publicGradeableJson, uploadGradeable } from '../support/gradeables.ts';

let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
const MEMBERS = 6;

const useJobs = (minUsers: number | undefined) => {
  if (minUsers === undefined) delete process.env.SUMMARIES_JOB_MIN_USERS;
  else process.env.SUMMARIES_JOB_MIN_USERS = String(minUsers);
};

const post = (path = `${base()}/reports/summaries`, token = world.tokens.instructor) => api.call('POST', path, { headers: token });

/** Reads the job until it ends (done or failed), checking each answer; every state seen, in order. */
async function untilEnded(jobId: string): Promise<{ last: Answer; states: string[] }> {
  const states: string[] = [];
  for (let attempt = 0; attempt < 600; attempt++) {
    const answer = await api.get(`${base()}/reports/summaries/jobs/${jobId}`, world.tokens.instructor);
    expect(answer.json.status, answer.text).toBe('success');
    expect(answer.json.data.job_id).toBe(jobId);
    const { done, total } = answer.json.data.progress as { done: number; total: number };
    expect(done).toBeLessThanOrEqual(total);
    if (states.at(-1) !== answer.json.data.state) states.push(answer.json.data.state as string);
    if (answer.json.data.state === 'done' || answer.json.data.state === 'failed') return { last: answer, states };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${jobId} did not end`);
}

/** Every summary of the current generation, without the generation time each carries. */
async function currentSummaries(): Promise<unknown[]> {
  const answer = await api.get(`${base()}/reports/summaries?page_size=500`, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return (answer.json.data.summaries as Record<string, unknown>[]).map(({ last_update: _, ...rest }) => rest);
}

const graded = (gradeableId: string, userId: string, points: number) =>
  putGradedSubmission({ term: world.course.term, course: world.course.course, gradeableId, userId, points });

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  const released = publicGradeableJson('hw1', {
    title: 'Homework 1',
    syllabus_bucket: 'homework',
    dates: {
      ta_view_start_date: daysFromNow(-20),
      submission_open_date: daysFromNow(-19),
      submission_due_date: daysFromNow(-10),
      grade_start_date: daysFromNow(-9),
      grade_due_date: daysFromNow(-3),
      grade_released_date: daysFromNow(-2),
    },
  });
  await uploadGradeable(api, world, released);
  await graded('hw1', world.users.student.userId, 7);
  await graded('hw1', world.users.student2.userId, 3);
});
afterEach(() => {
  useJobs(undefined);
  api.server.summariesQueue.resume();
});
afterAll(() => api.close());

describe('summaries jobs', () => {
  let inRequest: unknown[];

  it('generates a course below the threshold in the request, answering as before', async () => {
    const answer = await post();
    expect(answer.json).toEqual({
      status: 'success',
      data: {
        course: `${world.course.term}/${world.course.course}`,
        summaries: MEMBERS,
        generated_at: expect.any(String),
        generation: expect.any(String),
      },
    });
    inRequest = await currentSummaries();
    expect(inRequest).toHaveLength(MEMBERS);
  });

  it('answers a job at once above it, which the queue runs to done with the same summaries', async () => {
    useJobs(MEMBERS);
    const started = performance.now();
    const answer = await post();
    const elapsed = performance.now() - started;
    expect(answer.json.status, answer.text).toBe('success');
    const job = answer.json.data;
    expect(job).toEqual({
      job_id: expect.stringMatching(SUMMARIES_JOB_ID),
      course: `${world.course.term}/${world.course.course}`,
      state: 'queued',
      progress: { done: 0, total: MEMBERS },
      requested_by: world.users.instructor.userId,
      created_at: expect.any(String),
      started_at: null,
      finished_at: null,
      summaries: null,
      generated_at: null,
      generation: null,
      message: 'Waiting on the summaries queue.',
    });
    console.info(`summaries job: POST answered in ${elapsed.toFixed(0)} ms`);
    const { last } = await untilEnded(job.job_id as string);
    expect(last.json.data).toMatchObject({
      state: 'done',
      progress: { done: MEMBERS, total: MEMBERS },
      summaries: MEMBERS,
      started_at: expect.any(String),
      finished_at: expect.any(String),
      generated_at: expect.any(String),
      generation: expect.any(String),
      message: `Generated ${MEMBERS} summaries.`,
    });
    const list = await api.get(`${base()}/reports/summaries`, world.tokens.instructor);
    expect(list.json.data.generated_at).toBe(last.json.data.generated_at);
    expect(await currentSummaries()).toEqual(inRequest);
  });

  it('answers the job under way to a second request instead of starting another', async () => {
    useJobs(MEMBERS);
    api.server.summariesQueue.pause();
    const first = await post();
    const second = await post(`/courses${base()}/reports/summaries`);
    expect(second.json.data.job_id).toBe(first.json.data.job_id);
    expect(second.json.data.state).toBe('queued');
    expect(api.server.summariesQueue.depth()).toBe(1);
    const status = await api.get(`${base()}/reports/summaries/jobs/${first.json.data.job_id}`, world.tokens.instructor);
    expect(status.json.data).toEqual(first.json.data);
    api.server.summariesQueue.resume();
    const { last } = await untilEnded(first.json.data.job_id as string);
    expect(last.json.data.state).toBe('done');
    // Once it is done, asking again starts a new job.
    const third = await post();
    expect(third.json.data.job_id).not.toBe(first.json.data.job_id);
    expect((await untilEnded(third.json.data.job_id as string)).last.json.data.state).toBe('done');
  });

  it('acts on a job once however often its message is delivered', async () => {
    useJobs(MEMBERS);
    const job = (await post()).json.data;
    const { last } = await untilEnded(job.job_id as string);
    api.server.summariesQueue.redeliver({ term: world.course.term, course: world.course.course, jobId: job.job_id as string });
    for (let attempt = 0; attempt < 100 && api.server.summariesQueue.depth() > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(api.server.summariesQueue.depth()).toBe(0);
    expect(api.server.summariesQueue.deadLetters()).toEqual([]);
    const again = await api.get(`${base()}/reports/summaries/jobs/${job.job_id}`, world.tokens.instructor);
    expect(again.json.data).toEqual(last.json.data);
    const { course } = await getItems({ course: courseRef(world.course.term, world.course.course) });
    expect(course?.summaries?.generation).toBe(last.json.data.generation);
    // Jobs keep to a partition of their own: the course's holds its summaries only (by generation, and each user's latest).
    const partition = await dynamo().send(
      new QueryCommand({
        TableName: tableName(tables.summaries),
        KeyConditionExpression: 'courseId = :course',
        ExpressionAttributeValues: { ':course': courseId(world.course.term, world.course.course) },
      }),
    );
    expect((partition.Items ?? []).filter((item) => !/^([0-9TZ]+-[0-9a-f]{6}|latest)#/.test(item.entry as string))).toEqual([]);
  });

  it('ends a job that cannot generate as failed, with a message, and frees the course for the next', async () => {
    useJobs(MEMBERS);
    api.server.summariesQueue.pause();
    const job = (await post()).json.data;
    const stored = async () =>
      (
        await getItems({
          job: {
            table: tables.summaries,
            key: { courseId: `${courseId(world.course.term, world.course.course)}#jobs`, entry: `job#${job.job_id}` },
            decode: (item) => item,
          },
        })
      ).job;
    // The course item goes away while the job waits (the job route refuses meanwhile): its worker has nothing to generate.
    const key = { term: world.course.term, course: world.course.course };
    const { course } = await getItems({ course: { table: tables.courses, key, decode: (item) => item } });
    await dynamo().send(new DeleteCommand({ TableName: tableName(tables.courses), Key: key }));
    try {
      api.server.summariesQueue.resume();
      for (let attempt = 0; attempt < 200 && (await stored())?.state !== 'failed'; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await dynamo().send(new PutCommand({ TableName: tableName(tables.courses), Item: course }));
    }
    const failed = await api.get(`${base()}/reports/summaries/jobs/${job.job_id}`, world.tokens.instructor);
    expect(failed.json.data).toMatchObject({ state: 'failed', message: 'The course no longer exists.', finished_at: expect.any(String) });
    const next = await post();
    expect(next.json.data.job_id).not.toBe(job.job_id);
    expect((await untilEnded(next.json.data.job_id as string)).last.json.data.state).toBe('done');
  });

  it('reads a job whose worker was stopped on every delivery as failed, and starts a new one when asked again', async () => {
    useJobs(MEMBERS);
    // What three deliveries that each ran out of time leave: the job running under a lease that ran out, and no message.
    const abandoned = newSummariesJobId();
    const now = Date.now();
    const record = {
      jobId: abandoned,
      term: world.course.term,
      course: world.course.course,
      state: 'running',
      done: 1,
      total: MEMBERS,
      requestedBy: world.users.instructor.userId,
      createdAt: new Date(now - 50 * 60_000).toISOString(),
      startedAt: new Date(now - 49 * 60_000).toISOString(),
      leaseUntil: now - 1_000,
      attempts: SUMMARIES_JOB_MAX_DELIVERIES,
    } as const;
    expect(await createSummariesJob(record, { until: now + 10 * 60_000, now })).toBe(true);
    const status = await api.get(`${base()}/reports/summaries/jobs/${abandoned}`, world.tokens.instructor);
    expect(status.json.data).toMatchObject({ state: 'failed', message: expect.stringMatching(/stopped before finishing this job/) });

    const next = (await post()).json.data;
    expect(next.job_id).not.toBe(abandoned);
    expect((await untilEnded(next.job_id as string)).last.json.data.state).toBe('done');
    const stored = await getItems({ job: summariesJobRef(world.course.term, world.course.course, abandoned) });
    expect(stored.job).toMatchObject({ state: 'failed', finishedAt: expect.any(String) });
  });

  it('leaves to a job under way the course the nightly run would otherwise generate twice', async () => {
    useJobs(MEMBERS);
    api.server.summariesQueue.pause();
    const job = (await post()).json.data;
    const { course: before } = await getItems({ course: courseRef(world.course.term, world.course.course) });
    const report = await nightlySummaries();
    expect(report.skipped).toBeGreaterThanOrEqual(1);
    const { course: after } = await getItems({ course: courseRef(world.course.term, world.course.course) });
    expect(after?.summaries?.generation).toBe(before?.summaries?.generation);
    api.server.summariesQueue.resume();
    expect((await untilEnded(job.job_id as string)).last.json.data.state).toBe('done');
    // With no job under way, the nightly run generates the course.
    const again = await nightlySummaries();
    expect(again.skipped).toBe(0);
    const { course: nightly } = await getItems({ course: courseRef(world.course.term, world.course.course) });
    expect(nightly?.summaries?.generation).not.toBe((await untilEnded(job.job_id as string)).last.json.data.generation);
  });

  it('refuses unknown ids, other courses’ jobs, students and graders, and hostile ids, each with an envelope', async () => {
    useJobs(MEMBERS);
    const job = (await post()).json.data;
    await untilEnded(job.job_id as string);
    const unknown = 'sj_AAAAAAAAAAAAAAAAAAAAAA';
    const notFound = await api.get(`${base()}/reports/summaries/jobs/${unknown}`, {
      ...world.tokens.instructor,
      Prefer: 'http-status',
    });
    expect(notFound.httpStatus).toBe(404);
    expect(notFound.json).toEqual({ status: 'fail', message: `No summaries job ${unknown} in this course.` });

    // The sibling course (same access group), its own instructor: another course's job is not found there.
    const sibling = await createCourse(world.term, world.users.otherInstructor);
    const elsewhere = await api.get(
      `/${sibling.term}/${sibling.course}/reports/summaries/jobs/${job.job_id}`,
      world.tokens.otherInstructor,
    );
    expect(elsewhere.json).toEqual({ status: 'fail', message: `No summaries job ${job.job_id} in this course.` });

    for (const persona of ['student', 'ta', 'mentor'] as const) {
      const answer = await api.get(`${base()}/reports/summaries/jobs/${job.job_id}`, world.tokens[persona]);
      expect(answer.json.status, persona).toBe('fail');
      expect(answer.json.message, persona).not.toContain(job.job_id);
      const started = await post(undefined, world.tokens[persona]);
      expect(started.json.status, persona).toBe('fail');
    }

    for (const hostile of [
      '..%2F..%2Fusers',
      'job%23' + job.job_id,
      `${job.job_id}%00`,
      'sj_' + 'A'.repeat(5000),
      '%E0%A4%A',
      "sj_AAAAAAAAAAAAAAAAAAAAA'",
      `${job.job_id}/x`,
    ]) {
      const answer = await api.get(`${base()}/reports/summaries/jobs/${hostile}`, world.tokens.instructor);
      expect(['fail'], hostile).toContain(answer.json.status);
      expect(typeof answer.json.message, hostile).toBe('string');
    }
  });
});
