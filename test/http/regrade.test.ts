import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApi, type TestApi } from '../support/http.ts';
import { editStoredGradeable, greets, runs, selfHostedVcs, uploadGradeable } from '../support/gradeables.ts';
import { addMember, createCourseWorld, tokenOf, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { daysFromNow as iso } from '../support/dates.ts';

/**
 * Regrade end to end over HTTP: a class submits and is graded against a broken test
 * case; the instructor fixes it and regrades one version, one student's active version and every
 * active version; the queue positions stay exact while the regrade jobs wait, each job object
 * reports its progress until done, and values, attempts and the grade summaries carry every new
 * score exactly. The local API, its grading queue and worker, the runner and bubblewrap, as
 * `npm start` runs them; repositories are local git repositories (file://), each version graded on
 * the commit its first grading checked out.
 */
let api: TestApi;
let world: CourseWorld;
let repositories: string;
let students: TestUser[];
const tokens = new Map<string, Record<string, string>>();
const gradeableId = uniqueCode('hw');
const base = () => `/${world.course.term}/${world.course.course}`;
const gradeablePath = () => `${base()}/gradeable/${gradeableId}`;

/** What each student's hello.sh does: greets properly, greets rudely, or fails. */
const scripts = {
  good: 'echo "Hello, World!"\n',
  rude: 'echo "Goodbye"\n',
  broken: 'exit 1\n',
} as const;

/** Runs (2 points) and Greets (3 points), whose expected output is wrong: nobody can pass it. */
const brokenTestCases = [runs(2), { name: 'Greets', command: 'sh hello.sh', points_available: 3, expect: { stdout: 'Hello World\n' } }];
const fixedGreets = greets(3);

beforeAll(async () => {
  repositories = await mkdtemp(join(tmpdir(), 'regrade-repositories-'));
  vi.stubEnv('FILE_REPOSITORIES_DIR', repositories);
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  const more = await Promise.all([createUser('user', 'carl'), createUser('user', 'dora'), createUser('user', 'emil')]);
  for (const user of more) await addMember(world.course, user, 4, '1');
  students = [world.users.student, world.users.student2, ...more];
  tokens.set(world.users.student.userId, world.tokens.student);
  tokens.set(world.users.student2.userId, world.tokens.student2);
  for (const user of more) tokens.set(user.userId, { Authorization: await tokenOf(api, user) });

  await uploadGradeable(api, world, {
    id: gradeableId,
    title: 'Homework: Hello',
    type: 'Electronic File',
    vcs: selfHostedVcs(`file://${repositories}/{$user_id}`),
    // Released already, so the grade summaries list it; without a due date, so nobody is late.
    dates: {
      ta_view_start_date: iso(-3),
      submission_open_date: iso(-2),
      submission_due_date: iso(-1),
      has_due_date: false,
      team_lock_date: iso(-1),
      grade_start_date: iso(-0.9),
      grade_due_date: iso(-0.8),
      grade_released_date: iso(-0.7),
      grade_inquiry_start_date: iso(-0.7),
      grade_inquiry_due_date: iso(-0.6),
    },
    autograding: { test_cases: brokenTestCases },
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await rm(repositories, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

const git = (cwd: string, ...args: string[]) =>
  promisify(execFile)(
    'git',
    ['-c', 'user.name=Student', '-c', 'user.email=student@example.edu', '-c', 'init.defaultBranch=main', ...args],
    {
      cwd,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    },
  );

/** The student's repository: hello.sh committed (a push, as far as grading is concerned). */
async function repository(user: TestUser, script: keyof typeof scripts) {
  const folder = join(repositories, user.userId);
  await mkdir(folder, { recursive: true });
  await git(folder, 'init', '-q');
  await writeFile(join(folder, 'hello.sh'), scripts[script]);
  await git(folder, 'add', '-A');
  await git(folder, 'commit', '-q', '-m', script);
}

async function submit(user: TestUser) {
  const answer = await api.postForm(`${gradeablePath()}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, tokens.get(user.userId));
  expect(answer.json.status, answer.text).toBe('success');
}

const values = async (user: TestUser) =>
  (await api.get(`${gradeablePath()}/values?user_id=${user.userId}`, world.tokens.instructor)).json.data;
const attempts = async (user: TestUser) =>
  (await api.get(`${gradeablePath()}/attempts?user_id=${user.userId}`, world.tokens.instructor)).json.data;

async function regrade(fields: Record<string, string>) {
  const answer = await api.postForm(`${gradeablePath()}/regrade`, fields, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data;
}
const status = async (regradeId: string) => (await api.get(`${base()}/regrades/${regradeId}`, world.tokens.instructor)).json;

/** Wake-ups as the submit and regrade functions send them. */
async function notify(times: number) {
  const { notifyWorkers } = await import('#shared/queue/wake-ups.ts');
  const { runAsFunction } = await import('#shared/environment.ts');
  const { localFunctionScope } = await import('#infra/local/functions.ts');
  for (let i = 0; i < times; i++) await runAsFunction(localFunctionScope('submit-vcs'), () => notifyWorkers(i));
}

/** Two workers of a second local API grade `jobs` jobs; `until` says when to stop polling. */
async function grade(jobs: number, until: () => Promise<boolean>, onPoll: () => Promise<void> = async () => {}) {
  const workers = await startTestApi({ workers: 2 });
  try {
    await notify(jobs);
    for (let poll = 0; poll < 600; poll++) {
      await onPoll();
      if (await until()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('not graded in time');
  } finally {
    await workers.close();
  }
}

/** The instructor's fix. Gradeables cannot be changed over HTTP (an upload of an existing id is refused), so it is written where the API keeps it. */
async function fixTheTestCase() {
  const stored = await api.get(`${base()}/${gradeableId}/download`, world.tokens.instructor);
  const document = stored.json.data;
  const again = await api.postJson(`${base()}/upload`, document, world.tokens.instructor);
  expect(again.json.message).toBe('An error has occurred: Gradeable already exists');
  await editStoredGradeable(world.course, gradeableId, (kept) => {
    kept.autograding.test_cases[1] = { ...kept.autograding.test_cases[1], ...fixedGreets };
  });
}

describe('regrade over HTTP', () => {
  it('regrades one version, one student and the class; positions stay exact; values and summaries carry every new score', async () => {
    const [amy, bob, carl, dora, emil] = students as [TestUser, TestUser, TestUser, TestUser, TestUser];
    await repository(amy, 'good');
    await repository(bob, 'good');
    await repository(carl, 'rude');
    await repository(dora, 'broken');
    await repository(emil, 'good');
    // amy submits twice (version 2 active); everyone else once.
    await submit(amy);
    for (const user of students) await submit(user);
    await grade(6, async () => (await Promise.all(students.map(values))).every((data) => data.autograding_complete));
    // Against the broken test case nobody earns Greets' 3 points.
    const before = await Promise.all(students.map(values));
    expect(before.map((data) => data.total_points)).toEqual([2, 2, 2, 0, 2]);

    await fixTheTestCase();

    // One version: amy's version 1 (not her active one).
    const one = await regrade({ user_id: amy.userId, version_to_regrade: '1' });
    expect(one).toMatchObject({
      regrade_id: expect.stringMatching(/^rg_[A-Za-z0-9_-]{22}$/),
      gradeable_id: gradeableId,
      state: 'queued',
      total: 1,
      queued: 1,
      graded: 0,
      failed: 0,
      skipped: 0,
      regrade_by: world.users.instructor.userId,
      created_at: expect.any(String),
    });
    expect((await attempts(amy)).map((attempt: { grading_state: string }) => attempt.grading_state)).toEqual(['graded', 'queued']);
    expect(await values(amy)).toMatchObject({ queue_position: -1, is_queued: false, total_points: 2 });

    // One student's active version: bob's. Queued second; his old results stay visible meanwhile.
    const two = await regrade({ user_id: bob.userId });
    expect(two).toMatchObject({ state: 'queued', total: 1, queued: 1, skipped: 0 });
    expect(await values(bob)).toMatchObject({ queue_position: 2, is_queued: true, autograding_complete: true, total_points: 2 });

    // Every active version: bob's is queued already (skipped); the others follow in order.
    const all = await regrade({});
    expect(all).toMatchObject({ state: 'queued', total: 5, queued: 4, skipped: 1 });
    const positions = await Promise.all(students.map(async (user) => (await values(user)).queue_position));
    expect(positions[1]).toBe(2);
    expect([...positions].sort()).toEqual([2, 3, 4, 5, 6]);
    // A submission meanwhile goes ahead of the regrades (their lane comes last): carl's version 2, at 1
    // (his version 1's regrade stays queued); the regrades' places move back one.
    await repository(carl, 'good');
    await submit(carl);
    expect(await values(carl)).toMatchObject({ queue_position: 1, highest_version: 2, autograding_complete: false });
    expect((await values(bob)).queue_position).toBe(3); // one place back
    for (const job of [one, two, all]) expect((await status(job.regrade_id)).data.state).toBe('queued');

    // Graded: positions only move forward; each job object reports its progress until done.
    const order = (position: number) => (position === -1 ? Infinity : position === 0 ? 1e6 : -position);
    let seen = await Promise.all(students.map(async (user) => (await values(user)).queue_position));
    const states = new Set<string>();
    await grade(
      7,
      async () => {
        const jobs = await Promise.all([one, two, all].map(async (job) => (await status(job.regrade_id)).data));
        for (const job of jobs) states.add(job.state);
        return jobs.every((job) => job.state === 'done') && (await values(carl)).autograding_complete;
      },
      async () => {
        const now = await Promise.all(students.map(async (user) => (await values(user)).queue_position));
        now.forEach((position, index) => expect(order(position)).toBeGreaterThanOrEqual(order(seen[index]!)));
        seen = now;
      },
    );
    expect(states.has('done')).toBe(true);
    expect((await status(one.regrade_id)).data).toMatchObject({ state: 'done', queued: 1, graded: 1, failed: 0 });
    expect((await status(two.regrade_id)).data).toMatchObject({ state: 'done', queued: 1, graded: 1, failed: 0 });
    expect((await status(all.regrade_id)).data).toMatchObject({ state: 'done', total: 5, queued: 4, skipped: 1, graded: 4, failed: 0 });

    // Every new score, exactly: good 5, rude 2, broken 0; carl's active version 2 (good) is his own.
    const after = await Promise.all(students.map(values));
    expect(after.map((data) => data.total_points)).toEqual([5, 5, 5, 0, 5]);
    expect(after.map((data) => data.queue_position)).toEqual([-1, -1, -1, -1, -1]);
    expect(after[0].test_cases.map((test: { testcase_message: string }) => test.testcase_message)).toEqual(['Passed', 'Passed']);
    expect((await attempts(amy)).map((attempt: { points: number }) => attempt.points)).toEqual([5, 5]);
    // carl's version 1 was regraded too, without touching his active version 2, on version 1's own
    // commit (the rude one), not on the fix he pushed since: 2 points, while his version 2 has 5.
    // (Before versions recorded their commit, this regrade graded the repository as it was then: 5.)
    expect(
      (await attempts(carl)).map((attempt: { version: number; points: number; commit: string }) => [
        attempt.version,
        attempt.points,
        /^[0-9a-f]{40}$/.test(attempt.commit),
      ]),
    ).toEqual([
      [2, 5, true],
      [1, 2, true],
    ]);

    // The grade summaries follow the active versions' new results.
    const generated = await api.call('POST', `${base()}/reports/summaries`, { headers: world.tokens.instructor });
    expect(generated.json.status, generated.text).toBe('success');
    const summaries = (await api.get(`${base()}/reports/summaries`, world.tokens.instructor)).json.data.summaries as {
      user_id: string;
      Homework?: { id: string; score: number; autograding_score: number; status: string }[];
    }[];
    const entries = students.map((user) =>
      summaries.find((summary) => summary.user_id === user.userId)?.Homework?.find((entry) => entry.id === gradeableId),
    );
    expect(entries.map((entry) => [entry?.autograding_score, entry?.score, entry?.status])).toEqual([
      [5, 5, 'Good'],
      [5, 5, 'Good'],
      [5, 5, 'Good'],
      [0, 0, 'Good'],
      [5, 5, 'Good'],
    ]);
  }, 240_000);
});
