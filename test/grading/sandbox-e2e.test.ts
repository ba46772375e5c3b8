import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { sandboxUnavailableMessage } from '#shared/grading/runner/launcher.ts';
import { logger } from '#shared/logger.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { hostile } from './hostile.ts';
import { perStudentRepositories, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * The attacks on the sandbox's guarantees (docs/sandbox.md) as a student makes them: a hostile repository submitted through the
 * local API, graded by the worker (checkout, launcher, harness in bubblewrap), results read back
 * as the student and the staff read them.
 */
// A machine without a working sandbox, for one test: the runner then runs in this process (not
// in a process of its own, as otherwise), where its sandbox check answers `sandboxProblem`.
const forced = vi.hoisted(() => ({ sandboxProblem: undefined as string | undefined }));
vi.mock('#shared/grading/runner/launcher.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#shared/grading/runner/launcher.ts')>();
  return {
    ...actual,
    sandboxProblem: async (...args: Parameters<typeof actual.sandboxProblem>) => forced.sandboxProblem ?? actual.sandboxProblem(...args),
  };
});
vi.mock('#shared/grading/worker/run.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#shared/grading/worker/run.ts')>();
  const { runSubmission } = await import('#shared/grading/runner/runner.ts');
  return {
    runGrading: (...args: Parameters<typeof actual.runGrading>) =>
      forced.sandboxProblem ? runSubmission(args[0]) : actual.runGrading(...args),
  };
});

const run = promisify(execFile);
let api: TestApi;
let world: CourseWorld;
let git: GitServer;
let scratch: string;
const daemonMarker = `e2e-daemon-${randomUUID()}`;

const show = (name: string, command: string, extra: Record<string, unknown> = {}) => ({
  name,
  command,
  points_available: 1,
  expect: { stdout: '' },
  ...extra,
});

function gradeables(): Record<string, Record<string, unknown>> {
  const dynamoDb = new URL(inject('dynamodbEndpoint'));
  const apiPort = new URL(api.url).port;
  return {
    network: {
      test_cases: [
        show('Rewrite grades in DynamoDB Local', `perl dynamo.pl 127.0.0.1:${dynamoDb.port}`),
        show('Log in to the API', `perl net.pl 127.0.0.1:${apiPort} localhost:${apiPort} ${git.host}`),
        show('Steal the signing secret', `sh peek.sh ${inject('signingSecretFile')} ${scratch}`),
      ],
    },
    daemon: { test_cases: [show('Leave a daemon', `sh daemon.sh ${daemonMarker}`), show('Look for it', 'sh traces.sh')] },
    next: { test_cases: [show('Find the daemon of the previous job', 'sh traces.sh')] },
    limits: {
      limits: { processes: 32, memory_mib: 128, cpu_seconds: 1, file_size_mib: 8, disk_mib: 32 },
      test_cases: [
        { name: 'Fork bomb', command: 'perl fork-loop.pl', points_available: 1 },
        { name: 'Memory', command: 'sh memory-split.sh', points_available: 1, limits: { memory_mib: 1024 } },
        { name: 'CPU', command: 'sh spin.sh', points_available: 1, timeout_seconds: 10 },
        { name: 'File size', command: 'sh huge-file.sh', points_available: 1 },
        { name: 'Disk', command: 'sh fill-disk.sh', points_available: 1 },
      ],
    },
    lie: {
      test_cases: [
        { name: 'Rig the result', command: 'sh lie.sh', points_available: 1, expect: { exit_code: 0 } },
        { name: 'Fails', command: 'false', points_available: 2, expect: { exit_code: 0 } },
        { name: 'Passes', command: 'true', points_available: 4, expect: { exit_code: 0 } },
      ],
    },
    plain: { test_cases: [{ name: 'Prints', command: 'cat own.txt', points_available: 1, expect: { stdout: 'my own file\n' } }] },
  };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sandbox-e2e-'));
  await writeFile(join(scratch, 'shared-local-instance.db'), 'the database', { mode: 0o644 });
  api = await startTestApi({ workers: 2 });
  world = await createCourseWorld(api);
  const repositories: Record<string, typeof hostile> = {};
  for (const id of ['network', 'daemon', 'limits', 'lie', 'plain']) repositories[`${id}-${world.users.student.userId}`] = hostile;
  repositories[`next-${world.users.student2.userId}`] = hostile;
  git = await startAllowedGitServer(repositories);
  for (const [id, autograding] of Object.entries(gradeables())) {
    await uploadGradeable(api, world, selfHostedGradeableJson(id, perStudentRepositories(git.url), { title: `Attack ${id}`, autograding }));
  }
}, 60_000);
afterAll(async () => {
  await api?.close();
  await git?.close();
  vi.unstubAllEnvs();
  await rm(scratch, { recursive: true, force: true });
});

interface Values {
  total_points: number;
  test_cases: { name: string; testcase_message: string; autochecks: { description: string; actual: string | null }[] }[];
}

async function submitAndWait(id: string, persona: 'student' | 'student2' = 'student'): Promise<Values> {
  const path = `/${world.course.term}/${world.course.course}/gradeable/${id}`;
  const submitted = await api.postForm(`${path}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens[persona]);
  expect(submitted.json.status, submitted.text).toBe('success');
  for (let poll = 0; poll < 300; poll++) {
    const values = (await api.get(`${path}/values`, world.tokens[persona])).json.data;
    if (values.autograding_complete) return values as Values;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${id} was not graded in time`);
}

const printed = (values: Values, name: string) =>
  values.test_cases.find((test) => test.name === name)?.autochecks.find((check) => check.description === 'Standard output')?.actual ?? '';

async function processesWith(marker: string): Promise<string[]> {
  try {
    return (await run('pgrep', ['-af', marker])).stdout.trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('attacks through the API and the worker', () => {
  it('cannot reach DynamoDB Local or the API, nor read the signing secret or the data folder', async () => {
    const values = await submitAndWait('network');
    expect(printed(values, 'Rewrite grades in DynamoDB Local')).toBe('DynamoDB unreachable\n');
    const apiAttempt = printed(values, 'Log in to the API');
    expect(apiAttempt).toContain('control: connected');
    expect(apiAttempt).not.toContain('CONNECTED');
    const secretAttempt = printed(values, 'Steal the signing secret');
    expect(secretAttempt).toContain(`hidden ${inject('signingSecretFile')}`);
    expect(secretAttempt).toContain(`hidden ${scratch}`);
    expect(values.total_points).toBe(0);
    // Outside the sandbox the same script gets an answer from DynamoDB Local: the attack is real.
    const { stdout } = await run('perl', ['dynamo.pl', `127.0.0.1:${new URL(inject('dynamodbEndpoint')).port}`], {
      cwd: git.workingTree(`network-${world.users.student.userId}`),
    });
    expect(stdout).toMatch(/^DynamoDB answered: HTTP\/1\.1 \d+/);
  });

  it("kills the daemon before the result is written; the next student's job finds nothing of it", async () => {
    const values = await submitAndWait('daemon');
    expect(await processesWith(daemonMarker)).toEqual([]); // the result is visible: the daemon is already dead
    expect(printed(values, 'Leave a daemon')).toMatch(/started [1-9]/);
    expect(printed(values, 'Look for it')).toContain('heartbeats: 0');
    const next = await submitAndWait('next', 'student2');
    expect(printed(next, 'Find the daemon of the previous job')).toContain('heartbeats: 0');
    expect(printed(next, 'Find the daemon of the previous job')).toContain('control: my own file');
  });

  it("shows the student which limit stopped each test case, within the operator's bounds", async () => {
    vi.stubEnv('GRADING_MAX_MEMORY_MIB', '96'); // the gradeable asks for 128 and 1024 MiB
    try {
      const values = await submitAndWait('limits');
      expect(Object.fromEntries(values.test_cases.map((test) => [test.name, test.testcase_message]))).toEqual({
        'Fork bomb': 'Killed: process limit of 32 exceeded',
        Memory: 'Killed: memory limit of 96 MiB exceeded',
        CPU: 'Killed: CPU time limit of 1 s exceeded',
        'File size': 'Killed: file size limit of 8 MiB exceeded',
        Disk: expect.stringMatching(/^(Killed: disk limit of 32 MiB exceeded|Disk limit of 32 MiB exceeded: no space was left)$/),
      });
      expect(values.total_points).toBe(0);
    } finally {
      vi.unstubAllEnvs();
      vi.stubEnv('ALLOWED_GIT_HOSTS', git.host);
    }
  }, 60_000);

  it('scores the truth although the student fakes results and kills what it can see', async () => {
    const values = await submitAndWait('lie');
    expect(values.test_cases.map((test) => [test.name, test.testcase_message])).toEqual([
      ['Rig the result', 'Passed'],
      ['Fails', 'Exited with code 1 (expected 0)'],
      ['Passes', 'Passed'],
    ]);
    expect(values.total_points).toBe(5);
  });
});

describe('without a working sandbox', () => {
  it('grades nothing: the job fails with a message the student and the staff see', async () => {
    forced.sandboxProblem = 'bubblewrap (bwrap) is not installed';
    try {
      const values = await submitAndWait('plain');
      const message = sandboxUnavailableMessage('bubblewrap (bwrap) is not installed');
      expect(values).toMatchObject({ total_points: 0, test_cases: [{ name: 'Grading', testcase_message: message }] });
      const path = `/${world.course.term}/${world.course.course}/gradeable/plain`;
      const staff = (await api.get(`${path}/values?user_id=${world.users.student.userId}`, world.tokens.instructor)).json.data as Values;
      expect(staff.test_cases[0]!.testcase_message).toBe(message);
      const [attempt] = (await api.get(`${path}/attempts`, world.tokens.student)).json.data;
      expect(attempt).toMatchObject({ grading_state: 'failed', message });
    } finally {
      forced.sandboxProblem = undefined;
    }
  });

  it('runs unsandboxed only under GRADING_SANDBOX=unsafe-none, with a warning logged for every job', async () => {
    vi.stubEnv('GRADING_SANDBOX', 'unsafe-none');
    const warn = vi.spyOn(logger, 'warn');
    try {
      for (let job = 0; job < 2; job++) expect((await submitAndWait('plain')).test_cases[0]!.testcase_message).toBe('Passed');
      const warnings = warn.mock.calls.filter(([entry]) => JSON.stringify(entry).includes('GRADING_SANDBOX=unsafe-none'));
      expect(warnings).toHaveLength(2);
    } finally {
      warn.mockRestore();
      vi.unstubAllEnvs();
      vi.stubEnv('ALLOWED_GIT_HOSTS', git.host);
    }
  });
});
