import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIsolated, runnerEnvironment } from '#shared/grading/runner/in-process.ts';
import type { RunResult, TestCaseOutcome } from '#shared/grading/runner-protocol.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { fixtures, request, testCase } from './fixtures.ts';

const secret = `secret-for-test-${randomUUID()}`;
const awsSecret = `aws-secret-${randomUUID()}`;
let server: GitServer;
/** A process started with the secrets in its environment, whose /proc/<pid>/environ the command tries to read. */
let holder: ChildProcess;

beforeAll(async () => {
  process.env.SECRET_FOR_TEST = secret;
  process.env.AWS_SECRET_ACCESS_KEY = awsSecret;
  holder = spawn('sleep', ['60'], { env: { ...process.env }, stdio: 'ignore' });
  server = await startGitServer({ pass: fixtures.pass!, snoop: fixtures.snoop! });
});
afterAll(async () => {
  holder?.kill('SIGKILL');
  delete process.env.SECRET_FOR_TEST;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  delete process.env.FILE_REPOSITORIES_DIR;
  await server?.close();
});

const graded = (result: RunResult): readonly TestCaseOutcome[] => {
  if (result.status !== 'graded') throw new Error(`expected graded, got ${JSON.stringify(result)}`);
  return result.testCases;
};

describe('the runner in a process of its own', () => {
  it('gives the runner only PATH, HOME, LANG and FILE_REPOSITORIES_DIR', () => {
    expect(process.env.DYNAMODB_ENDPOINT).toBeTruthy(); // the test process does hold it
    expect(Object.keys(runnerEnvironment()).sort()).toEqual(['HOME', 'LANG', 'PATH']);
    process.env.FILE_REPOSITORIES_DIR = '/srv/repositories';
    expect(runnerEnvironment().FILE_REPOSITORIES_DIR).toBe('/srv/repositories');
    delete process.env.FILE_REPOSITORIES_DIR;
  });

  it('leaks no secret to a command reading the environment of its parent, of init and of the worker', async () => {
    // Whatever the command prints is searched for each secret: a "contains" check that must fail.
    // In its own PID namespace the command cannot reach these processes, whoever the server runs as.
    const command = `sh snoop.sh ${process.pid} ${holder.pid}`;
    const searched = [
      secret,
      awsSecret,
      'SECRET_FOR_TEST',
      'DYNAMODB_ENDPOINT',
      'SIGNING_SECRET',
      'AWS_',
      'TABLE_PREFIX',
      process.env.DYNAMODB_ENDPOINT!,
    ];
    const result = await runIsolated(
      request(
        server.repositoryUrl('snoop'),
        [
          testCase({ name: 'output', command, expect: { stdout: 'shown on failure' } }),
          testCase({ name: 'ran to the end', command, expect: { stdout_contains: '--- end' } }),
          ...searched.map((text) => testCase({ name: `no ${text}`, command, expect: { stdout_contains: text } })),
        ],
        { allowedHosts: [server.host], limits: { maxRepositoryBytes: 1024 * 1024, maxRepositoryFiles: 10, maxOutputBytes: 1024 * 1024 } },
      ),
    );
    const [output, ranToTheEnd, ...searches] = graded(result);

    expect(ranToTheEnd!.message).toBe('Passed');
    const printed = output!.autochecks[0]!.actual!; // the first 4 KiB
    const environment = printed.split('--- env\n')[1]!.split('--- 1')[0]!;
    const names = environment
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('=')[0]);
    expect(names.filter((name) => !['PATH', 'HOME', 'LANG', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(name!))).toEqual([]);
    expect(environment).toContain('PATH=/usr/local/bin:/usr/bin:/bin');
    expect(environment).toContain('LANG=C.UTF-8');
    for (const search of searches) expect(search.message, search.name).toMatch(/^Output does not contain /);
    expect(printed).toContain('uid=1002'); // the sandbox's student, whoever the server runs as
  });

  it('passes results and checkout failures through', async () => {
    const passed = graded(
      await runIsolated(
        request(server.repositoryUrl('pass'), [testCase({ command: 'sh hello.sh', expect: { stdout: 'Hello, World!\n' } })], {
          allowedHosts: [server.host],
        }),
      ),
    );
    expect(passed.map((outcome) => outcome.message)).toEqual(['Passed']);
    expect(await runIsolated(request('http://169.254.169.254/latest/meta-data/', [testCase({ command: 'true' })]))).toEqual({
      status: 'checkout-failed',
      message:
        'Could not check out the repository: the address 169.254.169.254 is a link-local address; repositories cannot be fetched from such addresses',
    });
  });

  it('lets file:// repositories through only when FILE_REPOSITORIES_DIR is passed on', async () => {
    const local = request(`file://${server.workingTree('pass')}`, [
      testCase({ command: 'sh hello.sh', expect: { stdout_contains: 'Hello' } }),
    ]);
    expect((await runIsolated(local)).status).toBe('checkout-failed');
    process.env.FILE_REPOSITORIES_DIR = dirname(server.workingTree('pass'));
    try {
      expect(graded(await runIsolated(local))[0]!.passed).toBe(true);
    } finally {
      delete process.env.FILE_REPOSITORIES_DIR;
    }
  });
});
