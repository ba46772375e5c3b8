import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getItems } from '#shared/data/items.ts';
import { queueRef } from '#shared/data/jobs.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { editStoredGradeable, greets, runs, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * A version is bound to its commit when it is submitted: the repository's head then, read through
 * the checkout's address guard, is what its grading and every regrade check out, whatever is pushed
 * between the submission and the grading. A repository that cannot be read is refused at once,
 * saying why, and nothing is written. The local API over HTTP (grading by the in-process worker,
 * the runner in bubblewrap) and a git server over HTTP.
 */
let api: TestApi;
let world: CourseWorld;
let git: GitServer;
const gradeableId = uniqueCode('hw');
const base = () => `/${world.course.term}/${world.course.course}`;
const path = (id = gradeableId) => `${base()}/gradeable/${id}`;
const repository = () => `${gradeableId}-${world.users.student.userId}`;

const testCases = [runs(2), greets(3)];

async function createGradeable(id: string, vcsPath: string) {
  await uploadGradeable(
    api,
    world,
    selfHostedGradeableJson(id, vcsPath, { title: `Homework ${id}`, autograding: { test_cases: testCases } }),
  );
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  // An empty repository: its default branch has no commit.
  git = await startAllowedGitServer({ [repository()]: { 'hello.sh': 'echo "Goodbye"\n' }, [`empty-${world.users.student.userId}`]: {} });
  await createGradeable(gradeableId, `${git.url}/{$gradeable_id}-{$user_id}.git`);
}, 60_000);
afterAll(() => closeAll(api, git));
afterEach(() => {
  vi.stubEnv('ALLOWED_GIT_HOSTS', git.host);
});

interface Attempt {
  version: number;
  grading_state: string;
  points: number | null;
  commit: string | null;
}
const attempts = async (id = gradeableId): Promise<Attempt[]> => (await api.get(`${path(id)}/attempts`, world.tokens.student)).json.data;
const brief = async () => (await attempts()).map((attempt) => [attempt.version, attempt.grading_state, attempt.points, attempt.commit]);
const submit = (id = gradeableId, headers: Record<string, string> = {}) =>
  api.postForm(`${path(id)}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, { ...world.tokens.student, ...headers });

/** Grades queued jobs (the in-process worker, as a worker Lambda would) until none is left. */
async function gradeAll() {
  while ((await gradeNextJob()) !== 'idle') {
    // each call grades one job
  }
}

describe('a version is bound to the commit it was submitted with', () => {
  it('is graded, and regraded, on that commit although a push came before its grading', async () => {
    const submitted = await git.head(repository());
    const answer = await submit();
    expect(answer.json).toEqual({ status: 'success', data: `Successfully uploaded version 1 for Homework ${gradeableId}` });
    // The fix is pushed right after submitting, before any worker took the job.
    const pushed = await git.push(repository(), { 'hello.sh': 'echo "Hello, World!"\n' });
    expect(pushed).not.toBe(submitted);
    expect(await brief()).toEqual([[1, 'queued', null, submitted]]);
    expect((await api.get(`${path()}/values`, world.tokens.student)).json.data).toMatchObject({ highest_version: 1, commit: submitted });

    await gradeAll();
    // Goodbye: runs (2), greets no one (0): the submitted commit's grade, not the pushed one's (5).
    expect(await brief()).toEqual([[1, 'graded', 2, submitted]]);

    const regrade = await api.postForm(
      `${path()}/regrade`,
      { user_id: world.users.student.userId, version_to_regrade: '1' },
      world.tokens.instructor,
    );
    expect(regrade.json.status, regrade.text).toBe('success');
    await gradeAll();
    expect(await brief()).toEqual([[1, 'graded', 2, submitted]]);

    // Submitting again binds the new version to the head as it is now.
    await submit();
    await gradeAll();
    expect(await brief()).toEqual([
      [2, 'graded', 5, pushed],
      [1, 'graded', 2, submitted],
    ]);
  }, 120_000);

  it('is graded, and regraded, from the repository it was submitted from although the gradeable names another since', async () => {
    const id = uniqueCode('moved');
    // The student's repository of the gradeable above.
    await createGradeable(id, `${git.url}/${gradeableId}-{$user_id}.git`);
    const submitted = await git.head(repository());
    const answer = await submit(id);
    expect(answer.json.status, answer.text).toBe('success');
    // The instructor points the gradeable at another repository (an empty one) before any worker took the job.
    await editStoredGradeable(world.course, id, (document) => {
      document.vcs.vcs_path = `${git.url}/empty-{$user_id}.git`;
    });
    const graded = async () => (await attempts(id)).map((attempt) => [attempt.version, attempt.grading_state, attempt.commit]);

    await gradeAll();
    expect(await graded()).toEqual([[1, 'graded', submitted]]);
    const regrade = await api.postForm(
      `${path(id)}/regrade`,
      { user_id: world.users.student.userId, version_to_regrade: '1' },
      world.tokens.instructor,
    );
    expect(regrade.json.status, regrade.text).toBe('success');
    await gradeAll();
    expect(await graded()).toEqual([[1, 'graded', submitted]]);
  }, 120_000);

  it('answers a retry with the same Idempotency-Key with the first answer, without reading the repository again', async () => {
    const key = { 'Idempotency-Key': uniqueCode('retry') };
    const first = await submit(gradeableId, key);
    expect(first.json.status, first.text).toBe('success');
    // The repository's address is refused from now on: only a submission that reads it again notices.
    vi.stubEnv('ALLOWED_GIT_HOSTS', '');
    expect((await submit(gradeableId, key)).json).toEqual(first.json);
    expect((await submit()).json.status).toBe('fail');
    await gradeAll();
  }, 60_000);
});

describe('a repository that cannot be read at submission', () => {
  const refusals: [string, (id: string) => string, () => string][] = [
    ['not found', () => `${git.url}/{$gradeable_id}-{$user_id}.git`, () => 'no repository was found at that address (HTTP 404)'],
    [
      'empty (no such branch)',
      () => `${git.url}/empty-{$user_id}.git`,
      () => 'the repository is empty (it has no commits on its default branch)',
    ],
    [
      'at a refused address',
      () => `${git.url}/to-metadata/{$user_id}.git`,
      () => 'the address 169.254.169.254 is a link-local address; repositories cannot be fetched from such addresses',
    ],
    ['not reachable', () => 'http://unreachable.invalid/{$user_id}.git', () => 'the host unreachable.invalid could not be found'],
  ];

  it.each(refusals)('is refused when %s, saying why, and writes no version or job', async (_, vcsPath, reason) => {
    const id = uniqueCode('gone');
    await createGradeable(id, vcsPath(id));
    const repositoryUrl = vcsPath(id).replace('{$gradeable_id}', id).replace('{$user_id}', world.users.student.userId);
    const { queue: before } = await getItems({ queue: queueRef() });

    const answer = await submit(id, { Prefer: 'http-status' });
    expect(answer.httpStatus).toBe(422);
    expect(answer.json).toEqual({
      status: 'fail',
      message: `Could not read the repository ${repositoryUrl}: ${reason()}. Nothing was submitted; submit again once it can be read.`,
    });

    const { queue: after, submission } = await getItems({
      queue: queueRef(),
      submission: submissionRef(world.course.term, world.course.course, id, world.users.student.userId),
    });
    expect(submission).toBeUndefined();
    expect(after).toEqual(before); // no ticket taken or reserved: no job
    expect(await attempts(id)).toEqual([]);
  });
});
