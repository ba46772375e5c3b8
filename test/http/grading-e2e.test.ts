import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtures } from '../grading/fixtures.ts';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { greets, perStudentRepositories, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * End to end over HTTP: the local API, its in-process grading queue and worker, the runner in a
 * separate process, and a git server over HTTP serving each student's repository.
 */
const SECRET = `secret-${Math.random().toString(36).slice(2)}`;
let api: TestApi;
let world: CourseWorld;
let git: GitServer;

const gradeables: Record<string, unknown[]> = {
  pass: [greets(5), { name: 'Has a README', command: 'true', points_available: 1, expect: { files_exist: ['README.md'] } }],
  fail: [{ name: 'Greets', command: 'sh hello.sh', points_available: 5, expect: { stdout: 'Hello, World!\n' } }],
  loop: [{ name: 'Finishes', command: 'sh loop.sh e2e-loop-marker', points_available: 5, timeout_seconds: 1, expect: { exit_code: 0 } }],
  flood: [{ name: 'Quiet', command: 'sh flood.sh', points_available: 5, expect: { stdout_contains: 'done' } }],
  snoop: [{ name: 'Finds no secret', command: 'sh snoop.sh', points_available: 1, expect: { stdout_contains: SECRET } }],
  missing: [{ name: 'Anything', command: 'true', points_available: 5, expect: { exit_code: 0 } }],
  // 100 test cases, each showing 4 KB of what the program printed: more than a DynamoDB item holds.
  verbose: Array.from({ length: 100 }, (_, index) => ({
    name: `Quiet ${index + 1}`,
    command: 'sh verbose.sh',
    points_available: 1,
    expect: { stdout: 'quiet\n' },
  })),
};

beforeAll(async () => {
  vi.stubEnv('SECRET_FOR_TEST', SECRET);
  api = await startTestApi({ workers: 2 });
  world = await createCourseWorld(api);
  const student = world.users.student.userId;
  git = await startAllowedGitServer(
    Object.fromEntries(
      Object.keys(fixtures)
        .filter((name) => name in gradeables)
        .map((name) => [`${name}-${student}`, fixtures[name]!]),
    ),
  );
  for (const [id, testCases] of Object.entries(gradeables)) {
    await uploadGradeable(
      api,
      world,
      selfHostedGradeableJson(id, perStudentRepositories(git.url), { title: `E2E ${id}`, autograding: { test_cases: testCases } }),
    );
  }
}, 60_000);
afterAll(() => closeAll(api, git));

async function submitAndWait(id: string) {
  const path = `/${world.course.term}/${world.course.course}/gradeable/${id}`;
  const submitted = await api.postForm(`${path}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
  expect(submitted.json.status, submitted.text).toBe('success');
  for (let poll = 0; poll < 200; poll++) {
    const values = (await api.get(`${path}/values`, world.tokens.student)).json.data;
    if (values.autograding_complete) return values;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`${id} was not graded in time`);
}

describe('grading end to end', () => {
  it('scores a passing repository in full', async () => {
    const values = await submitAndWait('pass');
    expect(values).toMatchObject({ total_points: 6, total_percent: 1, queue_position: -1 });
    expect(values.test_cases.map((test: { testcase_message: string }) => test.testcase_message)).toEqual(['Passed', 'Passed']);
  });

  it('shows what was expected and what came out when a test fails', async () => {
    const values = await submitAndWait('fail');
    expect(values.total_points).toBe(0);
    const check = values.test_cases[0].autochecks.find((item: { expected: string | null }) => item.expected !== null);
    expect(check).toMatchObject({
      expected: 'Hello, World!\n',
      actual: 'Goodbye, World!\n',
      diff_viewer: { differences: [{ expected: { start: 1, count: 1 }, actual: { start: 1, count: 1 } }], truncated: false },
    });
  });

  it('grades a test that never ends as timed out, and leaves no process behind', async () => {
    const values = await submitAndWait('loop');
    expect(values.test_cases[0].testcase_message).toBe('Timed out after 1 s');
    const { execFileSync } = await import('node:child_process');
    const leftovers = (() => {
      try {
        return execFileSync('pgrep', ['-f', 'e2e-loop-marker']).toString().trim();
      } catch {
        return '';
      }
    })();
    expect(leftovers).toBe('');
  });

  it('caps a flood of output', async () => {
    const values = await submitAndWait('flood');
    expect(values.total_points).toBe(0);
    expect(JSON.stringify(values).length).toBeLessThan(100_000);
  });

  it('grades a program that prints a lot in each of 100 test cases, showing the start of each output', async () => {
    const values = await submitAndWait('verbose');
    expect(values).toMatchObject({ total_points: 0, autograding_complete: true });
    expect(values.test_cases).toHaveLength(100);
    for (const test of values.test_cases as { points_received: number; autochecks: { actual: string | null }[] }[]) {
      expect(test.points_received).toBe(0);
      expect(test.autochecks.find((check) => check.actual !== null)?.actual).toMatch(/^x{1000,4095}\n\[… cut\]$/);
    }
  }, 60_000);

  it("keeps the worker's environment and secrets out of student code's reach", async () => {
    const values = await submitAndWait('snoop');
    expect(values.total_points).toBe(0);
    // What the student code printed (the expectation itself names the secret, of course).
    const text = values.test_cases[0].autochecks
      .map((check: { actual: string | null; messages: { message: string }[] }) =>
        [check.actual ?? '', ...check.messages.filter(() => check.actual === null).map((message) => message.message)].join('\n'),
      )
      .join('\n');
    expect(text).toContain('PATH=/usr/local/bin');
    for (const secret of [SECRET, process.env.DYNAMODB_ENDPOINT!, process.env.SIGNING_SECRET_FILE!, 'AWS_', 'TABLE_PREFIX']) {
      expect(text).not.toContain(secret);
    }
  });

  it('refuses a repository that cannot be read at submission, saying why, and records nothing', async () => {
    const path = `/${world.course.term}/${world.course.course}/gradeable/missing`;
    const submitted = await api.postForm(`${path}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
    expect(submitted.json).toEqual({
      status: 'fail',
      message:
        `Could not read the repository ${git.url}/missing-${world.users.student.userId}.git: no repository was found at that address (HTTP 404). ` +
        'Nothing was submitted; submit again once it can be read.',
    });
    expect((await api.get(`${path}/attempts`, world.tokens.student)).json.data).toEqual([]);
  });
});
