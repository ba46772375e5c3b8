import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordJobCommit } from '#shared/data/jobs.ts';
import { gradeableKey, recordVersionCommit } from '#shared/data/submissions.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { claimJob } from '#shared/queue/claim.ts';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { greets, perStudentRepositories, runs, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * A retry after a lost lease grades the commit the first attempt checked out:
 * a worker records its checkout's commit on the job and the version before anything runs, then
 * dies; the student pushes again; the next worker, taking the job over, grades the recorded
 * commit, not the newer one. The test claims jobs itself (no workers), over a git server on HTTP.
 */
let api: TestApi;
let world: CourseWorld;
let git: GitServer;
const gradeableId = uniqueCode('hw');
const path = () => `/${world.course.term}/${world.course.course}/gradeable/${gradeableId}`;
const repository = () => `${gradeableId}-${world.users.student.userId}`;

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  git = await startAllowedGitServer({ [repository()]: { 'hello.sh': 'echo "Goodbye"\n' } });
  await uploadGradeable(
    api,
    world,
    selfHostedGradeableJson(gradeableId, perStudentRepositories(git.url), {
      title: 'Homework: retried',
      autograding: {
        test_cases: [runs(2), greets(3)],
      },
    }),
  );
}, 60_000);
afterAll(() => closeAll(api, git));

describe('a retry after a lost lease', () => {
  it('grades the commit the first attempt recorded, not what was pushed since', async () => {
    const first = await git.head(repository());
    const submitted = await api.postForm(`${path()}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
    expect(submitted.json.status, submitted.text).toBe('success');
    // Claim any job queued before this test's (other files share the queue) until ours.
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '2');
    let dead = await claimJob();
    while (dead && dead.gradeableId !== gradeableId) dead = await claimJob();
    if (!dead) throw new Error('the job was not queued');
    // What the first worker's checkout records before anything runs; then it dies.
    await transactWrite([
      recordJobCommit(dead.ticket, dead.lease, first),
      recordVersionCommit(
        { gradeableKey: gradeableKey(world.course.term, world.course.course, gradeableId), ownerId: dead.ownerId },
        1,
        first,
      ),
    ]);
    const fixed = await git.push(repository(), { 'hello.sh': 'echo "Hello, World!"\n' });
    expect(fixed).not.toBe(first);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(dead.leaseExpiresAt) - Date.now() + 100));
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '60');
    let outcome = await gradeNextJob();
    while (outcome === 'graded' && (await attempts())[0]?.grading_state !== 'graded') outcome = await gradeNextJob();
    expect(outcome).toBe('graded');
    // Goodbye: runs (2), greets no one (0), as the commit recorded says.
    expect((await attempts()).map((attempt) => [attempt.version, attempt.grading_state, attempt.points, attempt.commit])).toEqual([
      [1, 'graded', 2, first],
    ]);
  }, 60_000);
});

const attempts = async (): Promise<{ version: number; grading_state: string; points: number | null; commit: string | null }[]> =>
  (await api.get(`${path()}/attempts`, world.tokens.student)).json.data;
