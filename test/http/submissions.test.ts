import { operationName } from '../support/dynamodb-commands.ts';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signToken } from '#shared/auth/jwt.ts';
import { newTokenClaims } from '#shared/auth/tokens.ts';
import { dynamo } from '#shared/data/client.ts';
import { getItems } from '#shared/data/items.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { jobRef, QUEUE_SHARDS, queueRef } from '#shared/data/jobs.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { putSession } from '#shared/data/sessions.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { anyShard } from '#shared/queue/tickets.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { claimJob } from '#shared/queue/claim.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { reserveFirstLane } from '../support/queue.ts';
import { addMember, createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { createUser } from '../support/users.ts';
import { daysFromNow, openDates } from '../support/dates.ts';
import { anyRepository } from '../support/shared-git.ts';
import { editStoredGradeable, greets, runs, selfHostedVcs, uploadGradeable } from '../support/gradeables.ts';

let api: TestApi;
let world: CourseWorld;
let repositories: string;

beforeAll(async () => {
  repositories = await mkdtemp(join(tmpdir(), 'repositories-'));
  vi.stubEnv('FILE_REPOSITORIES_DIR', repositories);
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
});
afterAll(async () => {
  await api.close();
  await rm(repositories, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

async function createGradeable(overrides: { id?: string; dates?: Record<string, unknown>; vcs?: unknown; type?: string } = {}) {
  const id = overrides.id ?? uniqueCode('hw');
  const document = {
    id,
    title: `Homework ${id}`,
    type: overrides.type ?? 'Electronic File',
    vcs: 'vcs' in overrides ? overrides.vcs : selfHostedVcs(anyRepository('{$user_id}')),
    dates: { ...openDates(), ...overrides.dates },
    autograding: {
      test_cases: [
        runs(2),
        greets(3),
        { name: 'Readme', command: 'true', points_available: 1, is_extra_credit: true, expect: { files_exist: ['README.md'] } },
        { name: 'Secret', command: 'sh hello.sh', points_available: 4, is_hidden: true, expect: { stdout: 'Hello, World!\n' } },
      ],
    },
  };
  if (overrides.type && overrides.type !== 'Electronic File') delete (document as Record<string, unknown>).vcs;
  await uploadGradeable(api, world, document);
  return id;
}

/** Repositories in `repositories/<user id>` folders, whose files a test writes (no history: graded as they are). */
const folderVcs = () => selfHostedVcs(`file://${repositories}/{$user_id}`);

/** Runs `body` with a setting of the service changed (the local functions read it on each request). */
async function withSetting<T>(name: string, value: string, body: () => Promise<T>): Promise<T> {
  const before = process.env[name];
  process.env[name] = value;
  try {
    return await body();
  } finally {
    if (before === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = before;
  }
}

/**
 * Claims every queued job, as workers that then vanish would (jobs other tests left queued are not
 * the next test's business), and forgets the students' counts of jobs queued or being graded that
 * those claimed jobs still hold, so that each test starts with every student in the first lane.
 */
async function drain(): Promise<void> {
  while (await claimJob()) {
    // claimed and left
  }
  await forgetLoads();
}

async function forgetLoads(): Promise<void> {
  const TableName = tableName(tables.jobs);
  const { Items = [] } = await dynamo().send(
    new ScanCommand({ TableName, FilterExpression: 'begins_with(job, :load)', ExpressionAttributeValues: { ':load': 'load#' } }),
  );
  await Promise.all(Items.map((item) => dynamo().send(new DeleteCommand({ TableName, Key: { job: item.job } }))));
}

const path = (id: string, action: string) => `/${world.course.term}/${world.course.course}/gradeable/${id}/${action}`;
const submit = (
  id: string,
  persona: keyof CourseWorld['tokens'],
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  action = 'upload',
) => api.postJson(path(id, action), { vcs_checkout: true, git_repo_id: 'none', ...body }, { ...world.tokens[persona], ...headers });
const values = (id: string, persona: keyof CourseWorld['tokens'], userId?: string) =>
  api.get(`${path(id, 'values')}${userId ? `?user_id=${userId}` : ''}`, world.tokens[persona]);

describe('submitting a VCS gradeable', () => {
  it('creates version 1, 2, … and answers in the reference words', async () => {
    const id = await createGradeable();
    expect((await submit(id, 'student')).json).toEqual({ status: 'success', data: `Successfully uploaded version 1 for Homework ${id}` });
    const form = await api.postForm(path(id, 'grade'), { vcs_checkout: 'True', git_repo_id: 'x' }, world.tokens.student);
    expect(form.json.data).toBe(`Successfully uploaded version 2 for Homework ${id}`);
    const attempts = await api.get(path(id, 'attempts'), world.tokens.student);
    expect(attempts.json.data.map((attempt: { version: number; active: boolean }) => [attempt.version, attempt.active])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(attempts.json.data[0]).toMatchObject({
      submitted_by: world.users.student.userId,
      days_late: 0,
      grading_state: 'queued',
      points: null,
    });
  });

  it('lets instructors and full access graders submit for a student', async () => {
    const id = await createGradeable();
    const student = world.users.student.userId;
    expect((await submit(id, 'instructor', { user_id: student })).json.data).toBe(
      `Successfully uploaded version 1 for Homework ${id} for ${student}`,
    );
    expect((await submit(id, 'ta', { user_id: student })).json.data).toBe(
      `Successfully uploaded version 2 for Homework ${id} for ${student}`,
    );
    expect((await submit(id, 'mentor', { user_id: student })).json.message).toBe(
      'API key and specified user_id are not for the same user.',
    );
    expect((await submit(id, 'student2', { user_id: student })).json.message).toBe(
      'API key and specified user_id are not for the same user.',
    );
    expect((await submit(id, 'instructor', { user_id: 'nobody-here' })).json.message).toBe('User nobody-here is not in this course.');
  });

  it('refuses in the reference order with the reference messages', async () => {
    const id = await createGradeable();
    const other = world.users.student2.userId;
    expect((await submit(id, 'student', { user_id: other, vcs_checkout: false })).json.message).toBe(
      'API key and specified user_id are not for the same user.',
    );
    expect((await submit(id, 'student', { vcs_checkout: 'false' })).json.message).toBe(
      'Student API for upload only supports VCS gradeables',
    );
    expect((await submit(id, 'student', { git_repo_id: undefined })).json.message).toBe('API requires git_repo_id variable to be set.');
    expect((await submit('no_such_hw', 'student')).json.message).toBe("Invalid gradeable id 'no_such_hw'");
    const notOpen = await createGradeable({ dates: { submission_open_date: daysFromNow(1), ta_view_start_date: daysFromNow(0) } });
    expect((await submit(notOpen, 'student')).json.message).toBe(`Invalid gradeable id '${notOpen}'`);
    const noVcs = await createGradeable({ vcs: undefined });
    expect((await submit(noVcs, 'student')).json.message).toBe('Student API for upload only supports VCS gradeables');
    const checkpoints = await createGradeable({ type: 'Checkpoints', dates: {} });
    expect((await submit(checkpoints, 'student')).json.status).toBe('fail');
    expect((await values(id, 'student')).json.data.has_submission).toBe(false);
  });

  it('finds no gradeable for a malformed id in a path, even beside a gradeable named -', async () => {
    await createGradeable({ id: '-' });
    const malformed = 'x'.repeat(65);
    expect((await submit(malformed, 'student')).json.message).toBe(`Invalid gradeable id '${'x'.repeat(64)}'`);
    expect((await values(malformed, 'instructor')).json).toEqual({ status: 'fail', message: 'Gradeable does not exist' });
    expect((await values('-', 'instructor')).json.status).toBe('success');
  });

  it('refuses late submissions beyond the allowance when late submission is not allowed', async () => {
    const lateDates = {
      ta_view_start_date: daysFromNow(-10),
      submission_open_date: daysFromNow(-9),
      submission_due_date: daysFromNow(-2.5),
      team_lock_date: daysFromNow(-2.5),
      grade_start_date: daysFromNow(1),
      grade_due_date: daysFromNow(2),
      grade_released_date: daysFromNow(3),
      grade_inquiry_start_date: daysFromNow(3),
      grade_inquiry_due_date: daysFromNow(4),
    };
    const strict = await createGradeable({ dates: { ...lateDates, late_submission_allowed: false, late_days: 2 } });
    expect((await submit(strict, 'student')).json.message).toBe(
      'The due date has passed: this submission would be 3 days late, and this gradeable accepts at most 2 days late.',
    );
    const lenient = await createGradeable({ dates: { ...lateDates, late_submission_allowed: false, late_days: 3 } });
    expect((await submit(lenient, 'student')).json.status).toBe('success');
    expect((await api.get(path(lenient, 'attempts'), world.tokens.student)).json.data[0].days_late).toBe(3);
  });

  it('gives 50 concurrent submissions of one student versions 1 to 50; only the newest is graded, the others superseded', async () => {
    const id = await createGradeable();
    const answers = await withSetting('SUBMISSIONS_PER_MINUTE', '50', () =>
      Promise.all(Array.from({ length: 50 }, () => submit(id, 'student2'))),
    );
    const numbers = answers.map((answer) => Number(/version (\d+)/.exec(answer.json.data)?.[1])).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const attempts = (await api.get(path(id, 'attempts'), world.tokens.student2)).json.data as { version: number; grading_state: string }[];
    expect(attempts.map((attempt) => attempt.version)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
    // Each version replaced the one before it while it was queued.
    expect(attempts.map((attempt) => attempt.grading_state)).toEqual(['queued', ...Array.from({ length: 49 }, () => 'superseded')]);
    const versions: number[] = [];
    for (let claimed = await claimJob(); claimed; claimed = await claimJob()) {
      if (claimed.gradeableId === id) versions.push(claimed.version);
    }
    expect(versions).toEqual([50]);
    await forgetLoads();
  }, 60_000);

  it('lets a student submit 10 versions a minute: of 25 at once, 10 are accepted and the rest refused with Retry-After, writing nothing', async () => {
    const id = await createGradeable();
    const answers = await Promise.all(Array.from({ length: 25 }, () => submit(id, 'student2', {}, { Prefer: 'http-status' })));
    const accepted = answers.filter((answer) => answer.json.status === 'success');
    const refused = answers.filter((answer) => answer.httpStatus === 429);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(15);
    for (const answer of refused) {
      expect(answer.json).toEqual({
        status: 'fail',
        message: expect.stringMatching(/^Too many submissions of this gradeable: at most 10 a minute\. Try again in \d+ seconds?\.$/),
      });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    expect((await values(id, 'student2')).json.data.highest_version).toBe(10);
    // Of the ten, the newest is graded; each of the others was superseded by the next.
    let jobs = 0;
    for (let claimed = await claimJob(); claimed; claimed = await claimJob()) if (claimed.gradeableId === id) jobs++;
    expect(jobs).toBe(1);
    await forgetLoads();
    // Another student, and another gradeable of the same student, are not held back.
    expect((await submit(id, 'student')).json.status).toBe('success');
    expect((await submit(await createGradeable(), 'student2')).json.status).toBe('success');
  }, 60_000);

  it('refuses a version beyond MAX_VERSIONS, writing nothing', async () => {
    const id = await createGradeable();
    await withSetting('MAX_VERSIONS', '2', async () => {
      expect((await submit(id, 'student')).json.status).toBe('success');
      expect((await submit(id, 'student')).json.status).toBe('success');
      const third = await submit(id, 'student', {}, { Prefer: 'http-status' });
      expect(third.httpStatus).toBe(422);
      expect(third.json).toEqual({ status: 'fail', message: 'This submission has reached its limit of 2 versions.' });
    });
    expect((await values(id, 'student')).json.data.highest_version).toBe(2);
  });

  it('returns the first answer to a retry with the same Idempotency-Key and creates nothing', async () => {
    const id = await createGradeable();
    const key = { 'Idempotency-Key': uniqueCode('key') };
    const first = await submit(id, 'student', {}, key);
    const retries = await Promise.all([submit(id, 'student', {}, key), submit(id, 'student', {}, key)]);
    for (const retry of retries) expect(retry.json).toEqual(first.json);
    expect((await values(id, 'student')).json.data.highest_version).toBe(1);
    const reused = await submit(id, 'student', { git_repo_id: 'other' }, key);
    expect(reused.json.message).toBe('This Idempotency-Key was already used for a different request.');
    expect((await submit(id, 'student', {}, { 'Idempotency-Key': uniqueCode('key') })).json.data).toMatch(/version 2/);
    expect((await submit(id, 'student', {}, { 'Idempotency-Key': 'k'.repeat(3000) })).json.message).toBe(
      'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
    );
    expect((await values(id, 'student')).json.data.highest_version).toBe(2);
  });

  it('answers the loser of two requests racing under one Idempotency-Key for different students as a reuse, at once', async () => {
    const id = await createGradeable();
    const targets = [world.users.student.userId, world.users.student2.userId];
    const highest = async () =>
      Promise.all(targets.map(async (userId) => (await values(id, 'instructor', userId)).json.data?.highest_version ?? 0));
    for (let round = 0; round < 8; round++) {
      const key = { 'Idempotency-Key': uniqueCode('key') };
      const before = await highest();
      const answers = await Promise.all(targets.map((userId) => submit(id, 'instructor', { user_id: userId }, key)));
      const after = await highest();
      // One request holds the key: its version, and nothing for the other, whose answer names the reuse.
      expect(answers.map((answer) => answer.json.status).sort(), JSON.stringify(answers.map((answer) => answer.json))).toEqual([
        'fail',
        'success',
      ]);
      expect(answers.find((answer) => answer.json.status === 'fail')?.json.message).toBe(
        'This Idempotency-Key was already used for a different request.',
      );
      expect(after.map((version, index) => version - (before[index] ?? 0)).sort()).toEqual([0, 1]);
    }
  }, 120_000);
});

describe('values and queue positions', () => {
  it('counts positions across the whole queue, 0 while grading, and -1 once graded or never queued', async () => {
    const id = await createGradeable();
    await drain();
    // This file's course submits far beyond COURSE_BURST_PER_MINUTE: without room, a minute ending
    // between the two submissions would put the second in the first lane and the first in the second.
    await withSetting('COURSE_BURST_PER_MINUTE', '100000', async () => {
      await submit(id, 'student');
      await submit(id, 'student2');
    });
    const student = await values(id, 'student');
    expect(student.json.data).toMatchObject({
      is_queued: true,
      queue_position: 1,
      is_grading: false,
      has_submission: true,
      highest_version: 1,
      has_active_version: true,
    });
    expect((await values(id, 'student2')).json.data.queue_position).toBe(2);
    const claimed = await claimJob();
    expect(claimed?.ownerId).toBe(world.users.student.userId);
    expect((await values(id, 'student')).json.data).toMatchObject({
      is_queued: false,
      queue_position: 0,
      is_grading: true,
      autograding_complete: false,
    });
    expect((await values(id, 'student2')).json.data.queue_position).toBe(1);
    const fresh = await createGradeable();
    expect((await values(fresh, 'student')).json.data).toEqual({
      is_queued: false,
      queue_position: -1,
      is_grading: false,
      has_submission: false,
      autograding_complete: false,
      has_active_version: false,
      highest_version: 0,
      total_points: null,
      total_percent: null,
      commit: null,
      test_cases: [],
      ta_grading: false,
      ta_grades_released: false,
      ta_grading_complete: false,
      tagrading_score: null,
      tagrading_max: 0,
      total_score: null,
      ta_components: [],
      days_late: null,
      late_days_charged: null,
      late_days_remaining: 0,
      queue_eta_seconds: null,
    });
  });

  it("never shows a student another student's values", async () => {
    const id = await createGradeable();
    await submit(id, 'student2');
    expect((await values(id, 'student', world.users.student2.userId)).json).toEqual({
      status: 'fail',
      message: 'API key and specified user_id are not for the same user.',
    });
    expect((await values(id, 'instructor', world.users.student2.userId)).json.data.highest_version).toBe(1);
    expect((await values(id, 'ta', world.users.student2.userId)).json.status).toBe('success');
    // The mentor grades section 1 only; student2 is in section 2.
    expect((await values(id, 'mentor', world.users.student2.userId)).json.status).toBe('fail');
    expect((await values(id, 'instructor', 'nobody-here')).json.message).toBe(
      'Graded gradeable for user with id nobody-here does not exist',
    );
    expect((await values('no_such_hw', 'student')).json).toEqual({ status: 'fail', message: 'Gradeable does not exist' });
  });
});

describe('a limited access grader asking for a student outside their sections', () => {
  it('gets one answer, naming the section, on values, attempts, files, late days and TA grades', async () => {
    const id = await createGradeable();
    await submit(id, 'student2');
    const course = `/${world.course.term}/${world.course.course}`;
    const student2 = world.users.student2.userId;
    // The mentor grades section 1 only; student2 is in section 2.
    const paths = [
      `${course}/gradeable/${id}/values?user_id=${student2}`,
      `${course}/gradeable/${id}/attempts?user_id=${student2}`,
      `${course}/gradeable/${id}/files?version=1&user_id=${student2}`,
      `${course}/late-days/${student2}`,
      `${course}/gradeable/${id}/grading/${student2}`,
    ];
    for (const path of paths) {
      const answer = await api.get(path, world.tokens.mentor);
      expect(answer.json, path).toEqual({ status: 'fail', message: 'You do not grade section 2.' });
    }
  });
});

describe('end to end', () => {
  it('grades a submission from its repository: visible test cases, points and percent', async () => {
    const graded = await startTestApi({ workers: 1 });
    try {
      await drain();
      const id = await createGradeable({ vcs: folderVcs() });
      const repository = join(repositories, world.users.student.userId);
      await mkdir(repository, { recursive: true });
      await writeFile(join(repository, 'hello.sh'), 'echo "Hello, ${1:-World}!"\n');
      await writeFile(join(repository, 'README.md'), '# hi\n');
      const answer = await graded.postJson(path(id, 'upload'), { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
      expect(answer.json.status, answer.text).toBe('success');
      let data: { autograding_complete?: boolean; test_cases?: { name: string; points_received: number }[] } = {};
      for (let poll = 0; poll < 100 && !data.autograding_complete; poll++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        data = (await graded.get(path(id, 'values'), world.tokens.student)).json.data;
      }
      expect(data).toMatchObject({
        autograding_complete: true,
        is_queued: false,
        is_grading: false,
        queue_position: -1,
        total_points: 6,
        total_percent: 1.2,
      });
      expect(data.test_cases!.map((test) => [test.name, test.points_received])).toEqual([
        ['Runs', 2],
        ['Greets', 3],
        ['Readme', 1],
      ]);
      expect(data.test_cases![0]).toEqual({
        name: 'Runs',
        details: '',
        is_extra_credit: false,
        points_available: 2,
        has_extra_results: false,
        points_received: 2,
        testcase_message: 'Passed',
        autochecks: [
          { description: 'Exit code', messages: [{ message: 'Passed', type: 'success' }], diff_viewer: null, expected: null, actual: null },
        ],
      });
      expect(Object.keys(data.test_cases![0]!)).toEqual([
        'name',
        'details',
        'is_extra_credit',
        'points_available',
        'has_extra_results',
        'points_received',
        'testcase_message',
        'autochecks',
      ]);
      const staff = (await graded.get(`${path(id, 'values')}?user_id=${world.users.student.userId}`, world.tokens.instructor)).json.data;
      expect(staff.test_cases).toHaveLength(4);
      expect(staff.total_points).toBe(10);

      // One total per reader: until grades are released a student's points leave the hidden test
      // case out in values and attempts alike, while staff see it in both; from then on the student
      // sees the staff's total everywhere, their summary included.
      const student = world.users.student.userId;
      const seen = async (persona: 'student' | 'ta' | 'instructor') => {
        const query = persona === 'student' ? '' : `?user_id=${student}`;
        const shown = (await graded.get(`${path(id, 'values')}${query}`, world.tokens[persona])).json.data;
        const listed = (await graded.get(`${path(id, 'attempts')}${query}`, world.tokens[persona])).json.data;
        return { values: shown.total_points, attempts: listed[0].points, total: shown.total_score };
      };
      expect(await seen('student')).toEqual({ values: 6, attempts: 6, total: 6 });
      expect(await seen('ta')).toEqual({ values: 10, attempts: 10, total: 10 });
      expect(await seen('instructor')).toEqual({ values: 10, attempts: 10, total: 10 });
      await editStoredGradeable(world.course, id, (document) => {
        document.dates.grade_released_date = new Date(Date.now() - 60_000).toISOString();
      });
      expect(await seen('student')).toEqual({ values: 10, attempts: 10, total: 10 });
      const released = (await graded.get(path(id, 'values'), world.tokens.student)).json.data;
      expect(released.test_cases.find((test: { name: string }) => test.name === 'Secret')).toEqual({
        name: 'Secret',
        details: '',
        is_extra_credit: false,
        points_available: 4,
        has_extra_results: false,
        points_received: 4,
        testcase_message: 'Hidden test case: its messages and output are shown to instructors only.',
        autochecks: [],
      });
      expect(released.total_percent).toBe(staff.total_percent);
      expect(
        (await graded.postJson(`/${world.course.term}/${world.course.course}/reports/summaries`, {}, world.tokens.instructor)).json.status,
      ).toBe('success');
      const summary = (await graded.get(`/${world.course.term}/${world.course.course}/reports/summaries/${student}`, world.tokens.student))
        .json.data;
      const entry = (summary.Homework as { id: string; autograding_score: number; score: number }[]).find(
        (gradeable) => gradeable.id === id,
      );
      expect(entry).toMatchObject({ autograding_score: 10, score: 10 });
    } finally {
      await graded.close();
    }
  }, 60_000);
});

describe('hidden test cases in values', () => {
  it("show instructors a failed hidden test case's expected output, and graders its score alone", async () => {
    const graded = await startTestApi({ workers: 1 });
    try {
      while (await claimJob()) {
        // jobs other tests left queued are not this test's business
      }
      const folder = join(repositories, 'quiet');
      const id = await createGradeable({
        vcs: selfHostedVcs(`file://${folder}/{$user_id}`),
      });
      const repository = join(folder, world.users.student.userId);
      await mkdir(repository, { recursive: true });
      await writeFile(join(repository, 'hello.sh'), 'echo "Hello there"\n');
      const answer = await graded.postJson(path(id, 'upload'), { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
      expect(answer.json.status, answer.text).toBe('success');
      const read = async (persona: 'instructor' | 'ta' | 'mentor') =>
        (await graded.get(`${path(id, 'values')}?user_id=${world.users.student.userId}`, world.tokens[persona])).json.data;
      let data: { autograding_complete?: boolean } = {};
      for (let poll = 0; poll < 100 && !data.autograding_complete; poll++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        data = await read('instructor');
      }
      const secret = (values: { test_cases: { name: string }[] }) => values.test_cases.find((test) => test.name === 'Secret');
      expect(secret(await read('instructor'))).toMatchObject({
        points_received: 0,
        testcase_message: 'Wrong output',
        autochecks: expect.arrayContaining([
          expect.objectContaining({
            expected: 'Hello, World!\n',
            actual: 'Hello there\n',
            diff_viewer: { differences: [{ expected: { start: 1, count: 1 }, actual: { start: 1, count: 1 } }], truncated: false },
          }),
        ]),
      });
      for (const persona of ['ta', 'mentor'] as const) {
        const values = await read(persona);
        expect(values.total_points, persona).toBe(5);
        expect(secret(values), persona).toEqual({
          name: 'Secret',
          details: '',
          is_extra_credit: false,
          points_available: 4,
          has_extra_results: false,
          points_received: 0,
          testcase_message: 'Hidden test case: its messages and output are shown to instructors only.',
          autochecks: [],
        });
        expect(JSON.stringify(values), persona).not.toContain('Hello, World');
      }
    } finally {
      await graded.close();
    }
  }, 60_000);
});

describe('workers that die', () => {
  it('leaves a job to the next worker once its lease runs out', async () => {
    await drain();
    const id = await createGradeable({ vcs: folderVcs() });
    const repository = join(repositories, world.users.student2.userId);
    await mkdir(repository, { recursive: true });
    await writeFile(join(repository, 'hello.sh'), 'echo "Hello, ${1:-World}!"\n');
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '3');
    await submit(id, 'student2');
    const dead = await claimJob(); // a worker takes the job and dies
    expect(dead?.gradeableId).toBe(id);
    expect((await values(id, 'student2')).json.data.is_grading).toBe(true);
    expect(await gradeNextJob()).toBe('idle'); // the lease still holds
    await new Promise((resolve) => setTimeout(resolve, Date.parse(dead!.leaseExpiresAt) - Date.now() + 100));
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '60');
    expect(await gradeNextJob()).toBe('graded');
    const data = (await values(id, 'student2')).json.data;
    expect(data).toMatchObject({ autograding_complete: true, total_points: 5, is_grading: false });
  }, 30_000);

  it('marks a job failed, with a message the student sees, after three attempts', async () => {
    await drain();
    const id = await createGradeable();
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '1');
    await submit(id, 'student');
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = await claimJob();
      expect(claimed?.attempts).toBe(attempt);
      await new Promise((resolve) => setTimeout(resolve, 1_050));
    }
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '60');
    expect(await gradeNextJob()).toBe('failed');
    const data = (await values(id, 'student')).json.data;
    expect(data).toMatchObject({ autograding_complete: true, total_points: 0, is_grading: false, queue_position: -1 });
    expect(data.test_cases[0].testcase_message).toMatch(/^Grading failed 3 times/);
    const [attempt] = (await api.get(path(id, 'attempts'), world.tokens.student)).json.data;
    expect(attempt).toMatchObject({ grading_state: 'failed', message: expect.stringMatching(/^Grading failed 3 times/) });
  }, 30_000);
});

describe('queue positions with several students and workers', () => {
  it('keeps every position exact while two workers grade', async () => {
    const drainApi = await startTestApi({ workers: 0 });
    await drainApi.close();
    await drain();
    const id = await createGradeable({ vcs: folderVcs() });
    for (const persona of ['student', 'student2'] as const) {
      const repository = join(repositories, world.users[persona].userId);
      await mkdir(repository, { recursive: true });
      await writeFile(join(repository, 'hello.sh'), 'sleep 0.3; echo "Hello, ${1:-World}!"\n');
    }
    for (let i = 0; i < 3; i++) {
      await submit(id, 'student');
      await submit(id, 'student2');
    }
    // Each version superseded the student's one before: the active versions wait, at positions 1 and 2.
    expect((await values(id, 'student')).json.data.queue_position).toBe(1);
    expect((await values(id, 'student2')).json.data.queue_position).toBe(2);
    const workers = await startTestApi({ workers: 2 });
    try {
      await notify(6);
      // Positions only ever move forward (queued n, …, 1, then 0 while graded, then -1), never back.
      const order = (position: number) => (position === -1 ? Infinity : position === 0 ? 1e6 : -position);
      let seen = [1, 2];
      for (let poll = 0; poll < 150; poll++) {
        const a = (await values(id, 'student')).json.data;
        const b = (await values(id, 'student2')).json.data;
        const positions = [a.queue_position, b.queue_position];
        positions.forEach((position, index) => expect(order(position)).toBeGreaterThanOrEqual(order(seen[index]!)));
        seen = positions;
        if (a.autograding_complete && b.autograding_complete) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(seen).toEqual([-1, -1]);
    } finally {
      await workers.close();
    }
  }, 60_000);
});

/** Wake-ups as the submit function sends them. */
async function notify(times: number) {
  const { notifyWorkers } = await import('#shared/queue/wake-ups.ts');
  const { runAsFunction } = await import('#shared/environment.ts');
  const { localFunctionScope } = await import('#infra/local/functions.ts');
  for (let i = 0; i < times; i++) await runAsFunction(localFunctionScope('submit-vcs'), () => notifyWorkers(i));
}

/** `count` new students of the course, each with a session token. */
const rushStudents = (count: number) =>
  Promise.all(
    Array.from({ length: count }, async () => {
      const user = await createUser('user', 'rush');
      await addMember(world.course, user, 4, '1');
      const claims = newTokenClaims(user.userId);
      await transactWrite([putSession(claims)]);
      return { userId: user.userId, token: { authorization: await signToken(claims) } };
    }),
  );

/**
 * Counts this process's DynamoDB requests by command (the test API runs in it) until `stop`, the
 * transactions cancelled, and the items read (`itemsRead`: every key a GetItem or BatchGetItem asks for).
 */
function countRequests() {
  const counts: Record<string, number> = {};
  const name = `countRequests${Math.random()}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const command = operationName(context.commandName);
      counts[command] = (counts[command] ?? 0) + 1;
      const input = args.input as { Key?: unknown; RequestItems?: Record<string, { Keys?: unknown[] }> };
      const read =
        command === 'GetItem'
          ? 1
          : command === 'BatchGetItem'
            ? Object.values(input.RequestItems ?? {}).reduce((sum, table) => sum + (table.Keys?.length ?? 0), 0)
            : 0;
      if (read > 0) counts.itemsRead = (counts.itemsRead ?? 0) + read;
      try {
        return await next(args);
      } catch (error) {
        if ((error as Error).name === 'TransactionCanceledException') counts.cancelled = (counts.cancelled ?? 0) + 1;
        throw error;
      }
    },
    { step: 'initialize', name },
  );
  return {
    stop: () => {
      dynamo().middlewareStack.remove(name);
      return counts;
    },
  };
}

describe('a deadline rush', () => {
  it('queues students submitting at once and one after another with one ticket reservation and one transaction each, none cancelled', async () => {
    await drain();
    const id = await createGradeable();
    const students = await rushStudents(30);
    const upload = (student: (typeof students)[number]) =>
      api.postJson(path(id, 'upload'), { vcs_checkout: true, git_repo_id: 'none' }, student.token);
    const together = countRequests();
    const answers = await Promise.all(students.slice(0, 20).map(upload));
    const atOnce = together.stop();
    // Then one after another, each with an Idempotency-Key (one item more to read): each draws its ticket from the clock.
    const apart = countRequests();
    for (const student of students.slice(20)) {
      const answer = await api.postJson(
        path(id, 'upload'),
        { vcs_checkout: true, git_repo_id: 'none' },
        { ...student.token, 'Idempotency-Key': uniqueCode('key') },
      );
      expect(answer.json.status).toBe('success');
    }
    const oneAfterAnother = apart.stop();
    expect(answers.map((answer) => answer.json.status)).toEqual(students.slice(0, 20).map(() => 'success'));
    // The reservation (an UpdateItem, which also counts the course's minute) and the transaction: nothing else is written.
    const writes = (counts: Record<string, number>) =>
      Object.fromEntries(Object.entries(counts).filter(([name]) => /^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(name)));
    expect(writes(atOnce)).toEqual({ TransactWriteItems: 20, UpdateItem: 20 });
    expect(atOnce.cancelled).toBeUndefined();
    expect(writes(oneAfterAnother)).toEqual({ TransactWriteItems: 10, UpdateItem: 10 });
    expect(oneAfterAnother.cancelled).toBeUndefined();
    // Each reads a bounded handful of items, never the whole queue: the token check's (session,
    // account, course, enrollment), the gradeable, its submission, the student's count, the
    // Idempotency-Key's answer and the course's two queue counters of the minute.
    expect(atOnce.itemsRead).toBeLessThanOrEqual(20 * 9);
    expect(oneAfterAnother.itemsRead).toBeLessThanOrEqual(10 * 10);
    const positions = await Promise.all(
      students.map(async (student) => (await api.get(path(id, 'values'), student.token)).json.data.queue_position),
    );
    expect([...positions].sort((a, b) => a - b)).toEqual(students.map((_, index) => index + 1));
    // Those one after another are served in arrival order.
    const later = positions.slice(20) as number[];
    expect(later).toEqual([...later].sort((a, b) => a - b));
  }, 60_000);

  it('keeps a quiet queue in exact arrival order, round after round, while a worker claims as each submission arrives', async () => {
    await drain();
    const id = await createGradeable();
    const students = await rushStudents(12);
    const arrived: number[] = [];
    const claimedStudents: number[] = [];
    for (const [index, student] of students.entries()) {
      // One student submits while a worker takes the oldest job: a race between the submission's ticket and the claim.
      const [answer, claimed] = await Promise.all([
        api.postJson(path(id, 'upload'), { vcs_checkout: true, git_repo_id: 'none' }, student.token),
        claimJob(),
      ]);
      expect(answer.json.status).toBe('success');
      arrived.push(index);
      if (claimed) claimedStudents.push(students.findIndex((other) => other.userId === claimed.ownerId));
      // The workers took the earliest arrivals, in arrival order; every other is queued at its place in arrival order.
      expect(claimedStudents).toEqual(arrived.slice(0, claimedStudents.length));
      const waiting = arrived.slice(claimedStudents.length);
      const positions = await Promise.all(
        waiting.map(async (waiter) => (await api.get(path(id, 'values'), students[waiter]!.token)).json.data.queue_position as number),
      );
      expect(positions).toEqual(waiting.map((_, rank) => rank + 1));
    }
    for (let job = await claimJob(); job; job = await claimJob())
      claimedStudents.push(students.findIndex((other) => other.userId === job.ownerId));
    expect(claimedStudents).toEqual(arrived);
  }, 120_000);

  it('answers every one of 40 students submitting at once, with exact positions; a ticket whose job never came is voided', async () => {
    await drain();
    const id = await createGradeable();
    const students = await rushStudents(40);
    const rush = (student: (typeof students)[number]) =>
      api.postJson(path(id, 'upload'), { vcs_checkout: true, git_repo_id: 'none' }, student.token);
    const answers = await Promise.all(students.map(rush));
    expect(answers.map((answer) => answer.json.status)).toEqual(students.map(() => 'success'));
    const positionOf = async (student: (typeof students)[number]) =>
      (await api.get(path(id, 'values'), student.token)).json.data.queue_position as number;
    const positions = await Promise.all(students.map(positionOf));
    expect([...positions].sort((a, b) => a - b)).toEqual(students.map((_, index) => index + 1));

    // A submission that reserved a ticket and died before writing its job: the ticket counts as
    // queued (the other positions leave its place free) until a worker reaches it and voids it.
    const orphan = await reserveFirstLane(anyShard());
    expect((await rush(students[0]!)).json.status).toBe('success');
    // 41 tickets queued: the 40, less the first student's first version (superseded by their second,
    // which their values show), and the reserved one.
    const places = await Promise.all(students.map(positionOf));
    const free = Array.from({ length: 41 }, (_, index) => index + 1).filter((place) => !places.includes(place));
    expect([new Set(places).size, free.length]).toEqual([40, 1]);
    const claimed: number[] = [];
    for (let job = await claimJob(); job; job = await claimJob()) claimed.push(job.ticket);
    expect(claimed).toHaveLength(40); // all but the voided ticket and the superseded version
    expect(claimed).toEqual([...claimed].sort((a, b) => a - b));
    expect((await getItems({ job: jobRef(orphan) })).job).toMatchObject({ state: 'void' });
  }, 60_000);

  it('gives back the tickets that refused submissions reserved: the places behind them stay exact', async () => {
    await drain();
    const id = await createGradeable();
    // 40 at once by one student, of which 10 are accepted: the others, refused after reserving their
    // tickets (a limit reached meanwhile), gave them up: the queue holds only the queued versions' tickets.
    const answers = await Promise.all(Array.from({ length: 40 }, () => submit(id, 'student2')));
    expect(answers.filter((answer) => answer.json.status === 'success')).toHaveLength(10);
    const { queue } = await getItems({ queue: queueRef() });
    const queuedVersions = async () => {
      const owner = world.users.student2.userId;
      const { submission } = await getItems({ submission: submissionRef(world.course.term, world.course.course, id, owner) });
      return submission!.versions.filter((version) => version.state === 'queued').map((version) => version.ticket);
    };
    expect(queue.flatMap((counter) => counter.queued).sort()).toEqual((await queuedVersions()).sort());
    expect((await submit(id, 'student')).json.status).toBe('success');
    // The place is the jobs below the ticket, plus one, whatever tickets were reserved and given up among them.
    const ticketsOf = async (persona: 'student' | 'student2') => {
      const owner = world.users[persona].userId;
      const { submission } = await getItems({ submission: submissionRef(world.course.term, world.course.course, id, owner) });
      return submission!.versions.filter((version) => version.state === 'queued').map((version) => version.ticket);
    };
    const [own] = await ticketsOf('student');
    const below = (await ticketsOf('student2')).filter((ticket) => ticket < own!).length;
    expect((await values(id, 'student')).json.data.queue_position).toBe(below + 1);
    // Workers pass the tickets given up (and the versions superseded) and forget them.
    let jobs = 0;
    for (let claimed = await claimJob(); claimed; claimed = await claimJob()) jobs++;
    expect(jobs).toBe(2);
    await forgetLoads();
    expect((await getItems({ queue: queueRef() })).queue.flatMap((counter) => counter.queued)).toEqual([]);
  }, 60_000);

  it('passes over any number of tickets left without a job (refused or vanished submissions) to the job behind them', async () => {
    await drain();
    const id = await createGradeable();
    // 30 tickets reserved ahead on every counter in the first lane: more than a claim's 20 tries at a race.
    await Promise.all(Array.from({ length: QUEUE_SHARDS }, (_, shard) => Array.from({ length: 30 }, () => reserveFirstLane(shard))).flat());
    expect((await submit(id, 'student')).json.status).toBe('success');
    expect(await claimJob()).toMatchObject({ gradeableId: id, ownerId: world.users.student.userId });
  }, 60_000);
});

describe('team gradeables', () => {
  it('lets any member submit for the team, and every member sees the team submission', async () => {
    const { runAdminCommand } = await import('#infra/admin/commands.ts');
    const id = uniqueCode('team');
    await uploadGradeable(api, world, {
      id,
      title: 'Team project',
      type: 'Electronic File',
      team_gradeable: { team_size_max: 2, inherit_from: '' },
      vcs: selfHostedVcs(anyRepository('{$team_id}')),
      dates: { ta_view_start_date: daysFromNow(-3), submission_open_date: daysFromNow(-2), submission_due_date: daysFromNow(5) },
    });
    expect((await submit(id, 'student')).json.message).toBe(`${world.users.student.userId} is not on a team for this gradeable.`);

    const lines: string[] = [];
    const team = uniqueCode('t');
    await runAdminCommand(
      ['create-team', world.course.term, world.course.course, id, team, world.users.student.userId, world.users.student2.userId],
      (line) => lines.push(line),
    );
    expect(lines[0]).toMatch(new RegExp(`^Team ${team} of ${id}`));
    await expect(
      runAdminCommand(['create-team', world.course.term, world.course.course, id, uniqueCode('t'), world.users.student.userId], () => {}),
    ).rejects.toThrow(/another team/);

    expect((await submit(id, 'student')).json.data).toBe('Successfully uploaded version 1 for Team project');
    expect((await submit(id, 'student2')).json.data).toBe('Successfully uploaded version 2 for Team project');
    const seenByStudent = (await values(id, 'student')).json.data;
    expect(seenByStudent).toMatchObject({ has_submission: true, highest_version: 2 });
    const attempts = (await api.get(path(id, 'attempts'), world.tokens.student)).json.data;
    expect(attempts.map((attempt: { submitted_by: string }) => attempt.submitted_by)).toEqual([
      world.users.student2.userId,
      world.users.student.userId,
    ]);
  });
});
