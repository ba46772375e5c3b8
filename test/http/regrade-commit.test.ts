import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { greets, perStudentRepositories, runs, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * A version is graded on its own code: submitting records the commit of the
 * repository's head, and every grading of that version (a regrade, a retry)
 * checks out exactly that commit, never what the student pushed since; a commit gone from the
 * repository (a force-push) fails that version's job with a message and leaves the other versions
 * alone. The local API with its workers, the runner in bubblewrap, and a git server over HTTP.
 */
let api: TestApi;
let world: CourseWorld;
let git: GitServer;
const gradeableId = uniqueCode('hw');
const base = () => `/${world.course.term}/${world.course.course}`;
const path = () => `${base()}/gradeable/${gradeableId}`;
const repository = () => `${gradeableId}-${world.users.student.userId}`;

/** Runs (2), Greets (3) and Takes its time (1; long enough to look at a version while it is graded). */
const testCases = [runs(2), greets(3), { name: 'Takes its time', command: 'sleep 2', points_available: 1, expect: { exit_code: 0 } }];

beforeAll(async () => {
  api = await startTestApi({ workers: 2 });
  world = await createCourseWorld(api);
  git = await startAllowedGitServer({ [repository()]: { 'hello.sh': 'echo "Goodbye"\n' } });
  await uploadGradeable(
    api,
    world,
    selfHostedGradeableJson(gradeableId, perStudentRepositories(git.url), {
      title: 'Homework: own commits',
      autograding: { test_cases: testCases },
    }),
  );
}, 60_000);
afterAll(() => closeAll(api, git));

interface Attempt {
  version: number;
  grading_state: string;
  points: number | null;
  message: string | null;
  commit: string | null;
}
const attempts = async (): Promise<Attempt[]> =>
  (await api.get(`${path()}/attempts?user_id=${world.users.student.userId}`, world.tokens.instructor)).json.data;
const brief = async () => (await attempts()).map((attempt) => [attempt.version, attempt.grading_state, attempt.points, attempt.commit]);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let poll = 0; poll < 400; poll++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what}: not in time`);
}

async function submit() {
  const answer = await api.postForm(`${path()}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
  expect(answer.json.status, answer.text).toBe('success');
}
const settled = (list: Attempt[]) => list.every((attempt) => attempt.grading_state === 'graded' || attempt.grading_state === 'failed');

async function regradeVersion(version: number) {
  const answer = await api.postForm(
    `${path()}/regrade`,
    { user_id: world.users.student.userId, version_to_regrade: String(version) },
    world.tokens.instructor,
  );
  expect(answer.json.status, answer.text).toBe('success');
  const id = answer.json.data.regrade_id as string;
  return until(
    async () => (await api.get(`${base()}/regrades/${id}`, world.tokens.instructor)).json.data,
    (job) => job.state === 'done',
    'regrade',
  );
}

describe('a version is graded on its own commit', () => {
  it('records the commit before grading ends, regrades that commit after newer pushes, and fails a commit gone after a force-push', async () => {
    const first = await git.head(repository());

    // Version 1 (greets wrongly): its commit is recorded as it is submitted, before any grading.
    await submit();
    expect(await attempts()).toMatchObject([{ version: 1, grading_state: expect.stringMatching(/^(queued|grading)$/), commit: first }]);
    await until(attempts, settled, 'version 1');
    expect(await brief()).toEqual([[1, 'graded', 3, first]]);

    // A fix pushed afterwards: a regrade of version 1 still grades version 1's code.
    const fixed = await git.push(repository(), { 'hello.sh': 'echo "Hello, World!"\n' });
    expect(await regradeVersion(1)).toMatchObject({ queued: 1, graded: 1, failed: 0 });
    expect(await brief()).toEqual([[1, 'graded', 3, first]]);

    // Version 2 is the fix.
    await submit();
    await until(attempts, settled, 'version 2');
    expect(await brief()).toEqual([
      [2, 'graded', 6, fixed],
      [1, 'graded', 3, first],
    ]);

    // The history replaced by a force-push: version 1's commit is gone. Its regrade fails with a
    // message; nothing newer is graded in its place, and version 2 keeps its results.
    await git.push(repository(), { 'hello.sh': 'echo "Hello, rewritten"\n' }, { replaceHistory: true });
    expect(await regradeVersion(1)).toMatchObject({ queued: 1, graded: 0, failed: 1 });
    const [two, one] = await attempts();
    expect(one).toMatchObject({ version: 1, grading_state: 'failed', points: 0, commit: first });
    expect(one?.message).toBe(
      `Could not check out the repository: commit ${first}, which this version was first graded on, is no longer in the repository ` +
        '(was its branch force-pushed or deleted?). This version cannot be graded again; submitting again grades the repository as it is now.',
    );
    expect(two).toMatchObject({ version: 2, grading_state: 'graded', points: 6, commit: fixed, message: null });
    const values = (await api.get(`${path()}/values`, world.tokens.student)).json.data;
    expect(values).toMatchObject({ highest_version: 2, total_points: 6 });
  }, 180_000);
});
