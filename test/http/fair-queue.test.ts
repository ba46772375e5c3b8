import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getItems } from '#shared/data/items.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import type { Course } from '#shared/courses/course.ts';
import { LANES } from '#shared/data/jobs.ts';
import { laneOf } from '#shared/queue/tickets.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { claimJob } from '#shared/queue/claim.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { addMember, createCourse, createCourseWorld, tokenOf, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { createUser } from '../support/users.ts';
import { selfHostedGradeableJson } from '../support/gradeables.ts';

/**
 * Fair grading under load, over HTTP against the local API (no workers: the test claims and grades
 * jobs itself): a version replaced while queued is not graded, a student's jobs queued or being
 * graded are bounded, and one student's burst does not push a classmate's new submission back.
 */
let api: TestApi;
let world: CourseWorld;
let repositories: string;

beforeAll(async () => {
  vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '120'); // the jobs this test claims itself are never renewed
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  repositories = await mkdtemp(join(tmpdir(), 'fair-repositories-'));
  vi.stubEnv('FILE_REPOSITORIES_DIR', repositories);
  for (const persona of ['student', 'student2'] as const) {
    await mkdir(join(repositories, world.users[persona].userId), { recursive: true });
    await writeFile(join(repositories, world.users[persona].userId, 'run.sh'), 'exit 0\n');
  }
});
afterAll(async () => {
  await api.close();
  await rm(repositories, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

async function createGradeable(course: Course = world.course, instructor = world.tokens.instructor): Promise<string> {
  const id = uniqueCode('hw');
  const answer = await api.postJson(
    `/${course.term}/${course.course}/upload`,
    selfHostedGradeableJson(id, `file://${repositories}/{$user_id}`, {
      title: `Homework ${id}`,
      autograding: { test_cases: [{ name: 'Runs', command: 'sh run.sh', points_available: 2, expect: { exit_code: 0 } }] },
    }),
    instructor,
  );
  expect(answer.json.status, answer.text).toBe('success');
  return id;
}

/** Another course of the term with `size` students (each with a repository) and a gradeable. */
async function courseOf(size: number) {
  const [instructor, ...students] = await Promise.all([
    createUser('faculty', 'instructor'),
    ...Array.from({ length: size }, () => createUser('user', 'student')),
  ]);
  const course = await createCourse(world.term, instructor!);
  await Promise.all(students.map((student) => addMember(course, student, 4, '1')));
  for (const student of students) {
    await mkdir(join(repositories, student.userId), { recursive: true });
    await writeFile(join(repositories, student.userId, 'run.sh'), 'exit 0\n');
  }
  const tokens = await Promise.all(students.map(async (student) => ({ Authorization: await tokenOf(api, student) })));
  const id = await createGradeable(course, { Authorization: await tokenOf(api, instructor!) });
  const gradeable = `/${course.term}/${course.course}/gradeable/${id}`;
  return {
    course,
    submit: (index: number) =>
      api.postJson(`${gradeable}/upload`, { vcs_checkout: true, git_repo_id: 'x' }, { ...tokens[index]!, Prefer: 'http-status' }),
    values: async (index: number) => (await api.get(`${gradeable}/values`, tokens[index]!)).json.data,
  };
}

const path = (id: string, action: string) => `/${world.course.term}/${world.course.course}/gradeable/${id}/${action}`;
const submit = (id: string, persona: keyof CourseWorld['tokens'], body: Record<string, unknown> = {}) =>
  api.postJson(path(id, 'upload'), { vcs_checkout: true, git_repo_id: 'x', ...body }, { ...world.tokens[persona], Prefer: 'http-status' });
const values = async (id: string, persona: keyof CourseWorld['tokens']) =>
  (await api.get(path(id, 'values'), world.tokens[persona])).json.data;
const attempts = async (id: string, persona: keyof CourseWorld['tokens']) =>
  (await api.get(path(id, 'attempts'), world.tokens[persona])).json.data as {
    version: number;
    grading_state: string;
    points: number | null;
  }[];

/** Grades every queued job; how many were graded (superseded versions are passed, not graded). */
async function gradeAll(): Promise<number> {
  let graded = 0;
  for (let outcome = await gradeNextJob(); outcome !== 'idle'; outcome = await gradeNextJob()) graded++;
  return graded;
}

describe('a version replaced while queued', () => {
  it('is superseded: visible in attempts, never graded, unless an instructor asks for it', async () => {
    await gradeAll();
    const id = await createGradeable();
    for (let version = 1; version <= 3; version++) expect((await submit(id, 'student')).json.status).toBe('success');
    // Staff submitting for the student ask for that version to be graded: the student's next one does not supersede it.
    expect((await submit(id, 'instructor', { user_id: world.users.student.userId })).json.status).toBe('success');
    expect((await submit(id, 'student')).json.status).toBe('success');
    expect((await attempts(id, 'student')).map((attempt) => [attempt.version, attempt.grading_state])).toEqual([
      [5, 'queued'],
      [4, 'queued'],
      [3, 'superseded'],
      [2, 'superseded'],
      [1, 'superseded'],
    ]);
    // Version 5, a second job of the student's, waits behind version 4.
    expect(await values(id, 'student')).toMatchObject({ highest_version: 5, queue_position: 2, is_queued: true });

    // Graded: versions 4 and 5 only.
    expect(await gradeAll()).toBe(2);
    expect((await attempts(id, 'student')).map((attempt) => [attempt.version, attempt.grading_state, attempt.points])).toEqual([
      [5, 'graded', 2],
      [4, 'graded', 2],
      [3, 'superseded', null],
      [2, 'superseded', null],
      [1, 'superseded', null],
    ]);

    // Chosen active again, a superseded version stays ungraded; an instructor's regrade grades it.
    const choose = await api.postJson(path(id, 'version'), { version: 2 }, world.tokens.student);
    expect(choose.json.status, choose.text).toBe('success');
    expect(await values(id, 'student')).toMatchObject({ queue_position: -1, is_queued: false, autograding_complete: false });
    expect(await gradeAll()).toBe(0);
    const regrade = await api.postJson(
      path(id, 'regrade'),
      { user_id: world.users.student.userId, version_to_regrade: 2 },
      world.tokens.instructor,
    );
    expect(regrade.json.data).toMatchObject({ queued: 1, skipped: 0 });
    expect(await gradeAll()).toBe(1);
    expect((await attempts(id, 'student')).find((attempt) => attempt.version === 2)).toMatchObject({ grading_state: 'graded', points: 2 });
  }, 120_000);
});

describe('jobs queued or being graded per student', () => {
  it('refuses a submission beyond MAX_QUEUED_JOBS_PER_STUDENT with 429 and Retry-After, exactly, under 25 at once, writing nothing', async () => {
    await gradeAll();
    const gradeables = await Promise.all(Array.from({ length: 25 }, () => createGradeable()));
    const before = process.env.MAX_QUEUED_JOBS_PER_STUDENT;
    process.env.MAX_QUEUED_JOBS_PER_STUDENT = '3';
    try {
      // One submission to each of 25 gradeables at once: nothing supersedes anything, no per-minute limit applies.
      const answers = await Promise.all(gradeables.map((id) => submit(id, 'student2')));
      const accepted = gradeables.filter((_, index) => answers[index]!.json.status === 'success');
      const refused = answers.filter((answer) => answer.httpStatus === 429);
      expect([accepted.length, refused.length]).toEqual([3, 22]);
      for (const answer of refused) {
        expect(answer.json).toEqual({
          status: 'fail',
          message: 'Too many of your submissions are waiting for grading: at most 3 at a time. Try again in 30 seconds.',
        });
        expect(answer.headers.get('retry-after')).toBe('30');
      }
      // Refused: no version, no job.
      for (const id of gradeables.filter((gradeable) => !accepted.includes(gradeable))) {
        const { submission } = await getItems({
          submission: submissionRef(world.course.term, world.course.course, id, world.users.student2.userId),
        });
        expect(submission).toBeUndefined();
      }
      // A staff member submitting for the student is not refused (nor counted).
      const [refusedOne, refusedTwo] = gradeables.filter((gradeable) => !accepted.includes(gradeable));
      expect((await submit(refusedOne!, 'instructor', { user_id: world.users.student2.userId })).json.status).toBe('success');
      // Once one of the three jobs ends (the first: the staff's waits behind it), the student may queue one more.
      expect(await gradeNextJob()).toBe('graded');
      expect((await submit(refusedOne!, 'student2')).json.status).toBe('success');
      expect((await submit(refusedTwo!, 'student2')).httpStatus).toBe(429);
      // At the limit, a new version of a queued one replaces it: it counts once, so it is accepted.
      const states = await Promise.all(accepted.map(async (id) => (await attempts(id, 'student2'))[0]!.grading_state));
      expect([...states].sort()).toEqual(['graded', 'queued', 'queued']);
      const queued = accepted[states.indexOf('queued')]!;
      expect((await submit(queued, 'student2')).json.status).toBe('success');
      expect((await attempts(queued, 'student2')).map((attempt) => attempt.grading_state)).toEqual(['queued', 'superseded']);
    } finally {
      if (before === undefined) Reflect.deleteProperty(process.env, 'MAX_QUEUED_JOBS_PER_STUDENT');
      else process.env.MAX_QUEUED_JOBS_PER_STUDENT = before;
    }
    await gradeAll();
  }, 120_000);
});

describe('a flood by one student beside a class', () => {
  it('leaves a classmate’s new submission at the front, its position exact and the order the workers keep', async () => {
    await gradeAll();
    const gradeables = await Promise.all([createGradeable(), createGradeable(), createGradeable()]);
    // student2 submits 10 versions of each of three gradeables, all at once: 30 submissions.
    const flood = await Promise.all(gradeables.flatMap((id) => Array.from({ length: 10 }, () => submit(id, 'student2'))));
    expect(flood.filter((answer) => answer.json.status === 'success')).toHaveLength(30);
    // A classmate then submits once.
    const [mine] = gradeables;
    expect((await submit(mine!, 'student')).json.status).toBe('success');
    const position = (await values(mine!, 'student')).queue_position as number;
    const claimed: string[] = [];
    const floodLanes: number[] = [];
    const tickets: string[] = [];
    for (let job = await claimJob(); job; job = await claimJob()) {
      claimed.push(job.ownerId);
      tickets.push(`${job.ownerId} ${job.gradeableId} v${job.version} #${job.ticket}`);
      if (job.ownerId === world.users.student2.userId) floodLanes.push(laneOf(job.ticket));
    }
    // All but one of the flood's jobs take the lane of further jobs, however its submissions raced.
    expect(floodLanes.filter((lane) => lane < LANES.more).length).toBeLessThanOrEqual(1);
    // So at most one of them (a first one) is ahead of the classmate's: the rest of the flood waits behind.
    expect(position).toBeGreaterThanOrEqual(1);
    expect(position).toBeLessThanOrEqual(2);
    // Exact: the workers take exactly position − 1 jobs before it, and three of the flood's in all.
    const order = tickets.join('\n');
    expect(claimed.indexOf(world.users.student.userId), order).toBe(position - 1);
    expect(claimed.filter((owner) => owner === world.users.student2.userId)).toHaveLength(3);
  }, 120_000);
});

describe('a deadline rush of one course beside another course', () => {
  it('leaves the other course’s new submission ahead of the rush’s later jobs, its position exact and the order the workers keep', async () => {
    await gradeAll();
    const [large, small] = await Promise.all([courseOf(12), courseOf(1)]);
    const before = process.env.COURSE_BURST_PER_MINUTE;
    process.env.COURSE_BURST_PER_MINUTE = '5';
    try {
      // Twelve students of the large course submit, each their first job: five at once (a course's
      // count holds the submissions queued before one is read, not those in flight beside it), then
      // seven one after another, so that a minute ending anywhere lets at most one more limit's worth in.
      const answers = await Promise.all(Array.from({ length: 5 }, (_, index) => large.submit(index)));
      for (let index = 5; index < 12; index++) answers.push(await large.submit(index));
      expect(answers.filter((answer) => answer.json.status === 'success')).toHaveLength(12);
      // Then a student of the small course submits once.
      expect((await small.submit(0)).json.status).toBe('success');
      const position = (await small.values(0)).queue_position as number;

      const claimed: { course: string; ticket: number }[] = [];
      for (let job = await claimJob(); job; job = await claimJob()) claimed.push({ course: job.course, ticket: job.ticket });
      expect(claimed).toHaveLength(13);
      const mine = claimed.findIndex((job) => job.course === small.course.course);
      const { ticket } = claimed[mine]!;
      expect(laneOf(ticket)).toBe(LANES.first);
      // Only the rush's jobs within the limit (5 a minute: at most two minutes' worth) took the first lane.
      const rush = claimed.filter((job) => job.course === large.course.course);
      const firstLane = rush.filter((job) => laneOf(job.ticket) === LANES.first);
      expect(firstLane.length).toBeGreaterThanOrEqual(5);
      expect(firstLane.length).toBeLessThanOrEqual(10);
      // Exact: its position counts the first lane's jobs queued ahead of it (lower tickets), and the workers take those, then it.
      expect(position).toBe(firstLane.filter((job) => job.ticket < ticket).length + 1);
      expect(mine).toBe(position - 1);
      // The rush's further jobs all wait behind it.
      const later = rush.filter((job) => laneOf(job.ticket) === LANES.rush);
      expect(later.length).toBe(12 - firstLane.length);
      expect(claimed.slice(mine + 1)).toEqual(expect.arrayContaining(later));
    } finally {
      if (before === undefined) Reflect.deleteProperty(process.env, 'COURSE_BURST_PER_MINUTE');
      else process.env.COURSE_BURST_PER_MINUTE = before;
    }
  }, 180_000);
});
