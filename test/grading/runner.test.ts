import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { guardedHttp } from '#shared/grading/checkout/http.ts';
import { runSubmission } from '#shared/grading/runner/runner.ts';
import type { RunResult, TestCaseOutcome } from '#shared/grading/runner-protocol.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { fixtures, processesWith, request, testCase } from './fixtures.ts';

let server: GitServer;
beforeAll(async () => {
  server = await startGitServer(fixtures);
});
afterAll(() => server?.close());

const graded = (result: RunResult): readonly TestCaseOutcome[] => {
  if (result.status !== 'graded') throw new Error(`expected graded, got ${JSON.stringify(result)}`);
  return result.testCases;
};
const checkoutFailure = (result: RunResult): string => {
  if (result.status !== 'checkout-failed') throw new Error(`expected checkout-failed, got ${JSON.stringify(result)}`);
  return result.message;
};
const submit = (name: string, testCases: Parameters<typeof request>[1], overrides: Parameters<typeof request>[2] = {}) =>
  runSubmission(request(server.repositoryUrl(name), testCases, { allowedHosts: [server.host], ...overrides }));

describe('a passing submission', () => {
  it('passes every test case of the README example, with the reference autocheck shape', async () => {
    const outcomes = graded(
      await submit('pass', [
        testCase({ name: 'Program runs', command: 'sh hello.sh', expect: { exit_code: 0 } }),
        testCase({ name: 'Prints a greeting', command: 'sh hello.sh', expect: { stdout_contains: 'Hello' } }),
        testCase({ name: 'Has a README', command: 'true', expect: { files_exist: ['README.md'] } }),
        testCase({ name: 'Greets by name', command: 'sh hello.sh World', timeout_seconds: 5, expect: { stdout: 'Hello, World!\n' } }),
      ]),
    );
    expect(outcomes.map((outcome) => [outcome.name, outcome.passed, outcome.message, outcome.exitCode, outcome.timedOut])).toEqual([
      ['Program runs', true, 'Passed', 0, false],
      ['Prints a greeting', true, 'Passed', 0, false],
      ['Has a README', true, 'Passed', 0, false],
      ['Greets by name', true, 'Passed', 0, false],
    ]);
    expect(outcomes[0]!.autochecks).toEqual([
      { description: 'Exit code', messages: [{ message: 'Passed', type: 'success' }], diff_viewer: null, expected: null, actual: null },
    ]);
    expect(outcomes[2]!.autochecks[0]).toMatchObject({
      description: 'File README.md exists',
      messages: [{ message: 'Passed', type: 'success' }],
    });
  });

  it('runs every test case in a fresh copy of the submission', async () => {
    const outcomes = graded(
      await submit('pass', [
        testCase({ command: 'echo changed > README.md && touch made-here && ls -a', expect: { files_exist: ['made-here'] } }),
        testCase({ command: 'cat README.md && ls -a', expect: { stdout_contains: '# Homework 1' } }),
        testCase({ command: 'true', expect: { files_exist: ['made-here'] } }),
      ]),
    );
    expect(outcomes.map((outcome) => outcome.message)).toEqual(['Passed', 'Passed', 'Missing file made-here']);
  });

  it('takes the subdirectory as the submission folder', async () => {
    const outcomes = graded(
      await submit('pass', [testCase({ command: 'sh inner.sh', expect: { stdout: 'inner\n' } })], {
        repository: { url: server.repositoryUrl('pass'), subdirectory: 'part2/' },
      }),
    );
    expect(outcomes[0]!.passed).toBe(true);
  });
});

describe('a failing submission', () => {
  it('reports the exit code, the wrong output and missing files with expected and actual', async () => {
    const outcomes = graded(
      await submit('fail', [
        testCase({ name: 'runs', command: 'sh hello.sh', expect: { exit_code: 0 } }),
        testCase({ name: 'exact', command: 'sh hello.sh', expect: { stdout: 'Hello, World!\n' } }),
        testCase({ name: 'contains', command: 'sh hello.sh', expect: { stdout_contains: 'Hello' } }),
        testCase({ name: 'readme', command: 'true', expect: { files_exist: ['README.md'] } }),
        testCase({ name: 'errors', command: 'echo oops >&2; exit 3', expect: { exit_code: 3 } }),
      ]),
    );
    const [runs, exact, contains, readme, errors] = outcomes;
    expect(runs).toMatchObject({ passed: false, message: 'Exited with code 1 (expected 0)', exitCode: 1, timedOut: false });
    expect(runs!.autochecks[0]).toMatchObject({
      messages: [{ message: 'Exited with code 1 (expected 0)', type: 'failure' }],
      expected: '0',
      actual: '1',
    });
    expect(exact).toMatchObject({ passed: false, message: 'Wrong output' });
    expect(exact!.autochecks[0]).toMatchObject({
      description: 'Standard output',
      expected: 'Hello, World!\n',
      actual: 'Goodbye, World!\n',
    });
    expect(contains).toMatchObject({ passed: false, message: 'Output does not contain "Hello"' });
    expect(contains!.autochecks[0]).toMatchObject({ expected: 'Hello', actual: 'Goodbye, World!\n' });
    expect(readme).toMatchObject({ passed: false, message: 'Missing file README.md' });
    expect(readme!.autochecks[0]).toMatchObject({ expected: null, actual: null });
    expect(errors).toMatchObject({ passed: true, message: 'Passed', exitCode: 3 });
    expect(errors!.autochecks[1]).toMatchObject({ description: 'Standard error', messages: [{ message: 'oops\n', type: 'information' }] });
  });

  it('cuts long expected and actual texts', async () => {
    const long = 'x'.repeat(10_000);
    const [outcome] = graded(await submit('fail', [testCase({ command: `printf '%s' ${long}`, expect: { stdout: `${long}y` } })]));
    expect(outcome!.message).toBe('Wrong output');
    expect(outcome!.autochecks[0]!.expected!.length).toBeLessThan(4200);
    expect(outcome!.autochecks[0]!.actual!.length).toBeLessThan(4200);
  });

  it('refuses files_exist paths that leave the test folder', async () => {
    const [outcome] = graded(
      await submit('pass', [testCase({ command: 'true', expect: { files_exist: ['../README.md', '/etc/passwd', 'escape/passwd'] } })]),
    );
    expect(outcome!.passed).toBe(false);
    expect(outcome!.autochecks.map((autocheck) => autocheck.messages[0]!.message)).toEqual([
      'Refused file path ../README.md: it leaves the submission folder',
      'Refused file path /etc/passwd: it leaves the submission folder',
      'Refused file path escape/passwd: it leaves the submission folder',
    ]);
  });
});

describe('runaway commands', () => {
  it('kills a command that loops forever, with its whole process group, at its time limit', async () => {
    const marker = `loop-marker-${randomUUID()}`;
    const started = Date.now();
    const [outcome] = graded(await submit('loop', [testCase({ command: `sh loop.sh ${marker}`, timeout_seconds: 1 })]));
    const elapsed = Date.now() - started;
    expect(outcome).toMatchObject({ passed: false, timedOut: true, message: 'Timed out after 1 s' });
    expect(outcome!.autochecks[0]).toMatchObject({ messages: [{ message: 'Timed out after 1 s', type: 'failure' }] });
    // Far below the job's own time limit (its wall time plus 30 s), which would stop it otherwise.
    expect(elapsed).toBeLessThan(10_000);
    expect(await processesWith(marker)).toEqual([]);
  });

  it('kills what a finished command left running in the background', async () => {
    const marker = `background-marker-${randomUUID()}`;
    const [outcome] = graded(
      await submit('pass', [testCase({ command: `sh -c "sleep 30" ${marker} & echo started`, expect: { stdout: 'started\n' } })]),
    );
    expect(outcome!.passed).toBe(true);
    expect(await processesWith(marker)).toEqual([]);
  });

  it('stops the running command when the run is aborted', async () => {
    const marker = `abort-marker-${randomUUID()}`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped by the test')), 1_000);
    const started = Date.now();
    const run = runSubmission(
      request(server.repositoryUrl('loop'), [testCase({ command: `sh loop.sh ${marker}`, timeout_seconds: 30 })], {
        allowedHosts: [server.host],
      }),
      {
        signal: controller.signal,
      },
    );
    await expect(run).rejects.toThrow('stopped by the test');
    expect(Date.now() - started).toBeLessThan(10_000); // its time limit is 30 s
    expect(await processesWith(marker)).toEqual([]);
  });

  it('caps megabytes of output and stops the command quickly', async () => {
    const started = Date.now();
    const [flood, over] = graded(
      await submit('flood', [
        testCase({ command: 'sh flood.sh', expect: { stdout_contains: 'done' } }),
        testCase({ command: 'head -c 100000 /dev/zero | tr "\\0" a', expect: { stdout_contains: 'aaa' } }),
      ]),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(flood).toMatchObject({ passed: false, timedOut: false, message: 'Stopped after writing more than 640 KB of output' });
    // Over the cap but under ten times it: kept and judged, with a warning.
    expect(over!.passed).toBe(true);
    expect(over!.autochecks[1]).toMatchObject({
      messages: [{ message: 'Only the first 65536 bytes of 100000 were kept', type: 'warning' }],
    });
  });
});

describe('checkout failures', () => {
  const refused = [
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/x',
    'http://10.0.0.1/x',
    'http://192.168.0.1/x',
    'http://[::ffff:127.0.0.1]/x',
  ];
  afterEach(() => vi.restoreAllMocks());

  it('refuses loopback, link-local and private addresses without connecting', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const local = `http://${server.host}/pass.git`;
    for (const url of [local, ...refused]) {
      const started = Date.now();
      const message = checkoutFailure(await runSubmission(request(url, [testCase({ command: 'true' })])));
      expect(message, url).toMatch(
        /^Could not check out the repository: the address .* is an? (loopback|link-local|private network) address/,
      );
      expect(Date.now() - started).toBeLessThan(5_000); // no connection attempt to time out
    }
    expect(connect).not.toHaveBeenCalled();
  });

  it('follows redirects, checking every address again', async () => {
    const outcomes = graded(
      await runSubmission(request(`${server.url}/moved/pass.git`, [testCase({ command: 'sh hello.sh' })], { allowedHosts: [server.host] })),
    );
    expect(outcomes[0]!.passed).toBe(true);
    const message = checkoutFailure(
      await runSubmission(request(`${server.url}/to-metadata/pass.git`, [], { allowedHosts: [server.host] })),
    );
    expect(message).toBe(
      'Could not check out the repository: the address 169.254.169.254 is a link-local address; repositories cannot be fetched from such addresses',
    );
    // The checkout's own process connects; its HTTP client, here, shows where.
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const http = guardedHttp({ allowedHosts: [server.host], maxBytes: 1024 * 1024 });
    await expect(http.request({ url: `${server.url}/to-metadata/pass.git/info/refs?service=git-upload-pack` })).rejects.toThrow(
      'the address 169.254.169.254 is a link-local address',
    );
    expect(connect).toHaveBeenCalledTimes(1); // the allowed server only
  });

  it('connects to the checked address, not to a second lookup', async () => {
    // git.invalid exists only for this resolver: the socket can reach the server only through the pinned address.
    const http = guardedHttp({
      allowedHosts: [`git.invalid:${server.host.split(':')[1]}`],
      maxBytes: 1024 * 1024,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const response = await http.request({
      url: `http://git.invalid:${server.host.split(':')[1]}/pass.git/info/refs?service=git-upload-pack`,
    });
    expect(response.statusCode).toBe(200);
    for await (const chunk of response.body!) expect(chunk).toBeInstanceOf(Uint8Array);
    expect(http.received()).toBeGreaterThan(0);
  });

  it('refuses a host that is allowed only on another port', async () => {
    const message = checkoutFailure(await runSubmission(request(server.repositoryUrl('pass'), [], { allowedHosts: ['127.0.0.1:1'] })));
    expect(message).toContain('is a loopback address');
  });

  it('explains an address that is not a repository', async () => {
    expect(checkoutFailure(await submit('missing', []))).toBe(
      'Could not check out the repository: no repository was found at that address (HTTP 404)',
    );
    const message = checkoutFailure(await runSubmission(request(`${server.url}/`, [], { allowedHosts: [server.host] })));
    expect(message).toMatch(/^Could not check out the repository: /);
    expect(checkoutFailure(await submit('empty', []))).toBe(
      'Could not check out the repository: the repository is empty (it has no commits on its default branch)',
    );
  });

  it('refuses other schemes and malformed addresses', async () => {
    expect(checkoutFailure(await runSubmission(request('ssh://git@example.com/r.git', [])))).toBe(
      'Could not check out the repository: only http and https repository addresses are supported, not ssh:',
    );
    expect(checkoutFailure(await runSubmission(request('not a url', [])))).toMatch(/is not a valid address/);
  });

  it('refuses a subdirectory that is missing, is a file or leaves the repository', async () => {
    const withSubdirectory = (subdirectory: string) =>
      submit('pass', [testCase({ command: 'true' })], { repository: { url: server.repositoryUrl('pass'), subdirectory } });
    expect(checkoutFailure(await withSubdirectory('nope'))).toBe(
      'Could not check out the repository: the repository has no subdirectory "nope"',
    );
    expect(checkoutFailure(await withSubdirectory('README.md'))).toContain('is not a folder');
    expect(checkoutFailure(await withSubdirectory('../'))).toBe(
      'Could not check out the repository: the subdirectory "../" lies outside the repository',
    );
    expect(checkoutFailure(await withSubdirectory('part2/../../x'))).toContain('lies outside the repository');
    expect(checkoutFailure(await withSubdirectory('escape'))).toContain('lies outside the repository');
  });

  it('caps the download and the number of files', async () => {
    const limits = { maxRepositoryBytes: 10 * 1024 * 1024, maxRepositoryFiles: 100, maxOutputBytes: 1024 };
    expect(checkoutFailure(await submit('pass', [], { limits: { ...limits, maxRepositoryBytes: 200 } }))).toMatch(
      /^Could not check out the repository: the repository is larger than the limit of 200 bytes$/,
    );
    expect(checkoutFailure(await submit('pass', [], { limits: { ...limits, maxRepositoryFiles: 2 } }))).toBe(
      'Could not check out the repository: the repository has more than 2 files',
    );
  });
});

describe('file:// repositories', () => {
  afterEach(() => {
    delete process.env.FILE_REPOSITORIES_DIR;
  });
  const trees = () => dirname(server.workingTree('pass'));

  it('are refused unless FILE_REPOSITORIES_DIR names a folder', async () => {
    const url = `file://${server.workingTree('pass')}`;
    const refused = 'Could not check out the repository: file:// repository addresses are not allowed on this server';
    expect(checkoutFailure(await runSubmission(request(url, [testCase({ command: 'true' })])))).toBe(refused);
    process.env.FILE_REPOSITORIES_DIR = '';
    expect(checkoutFailure(await runSubmission(request(url, [testCase({ command: 'true' })])))).toBe(refused);
    process.env.FILE_REPOSITORIES_DIR = join(trees(), 'missing');
    expect(checkoutFailure(await runSubmission(request(url, [])))).toBe(
      "Could not check out the repository: this server's repositories folder is missing",
    );
  });

  it('give the committed files of HEAD, without .git, when inside FILE_REPOSITORIES_DIR', async () => {
    process.env.FILE_REPOSITORIES_DIR = trees();
    const url = `file://${server.workingTree('pass')}`;
    const [outcome, git] = graded(
      await runSubmission(
        request(url, [
          testCase({ command: 'sh hello.sh', expect: { stdout: 'Hello, World!\n', files_exist: ['README.md'] } }),
          testCase({ command: 'true', expect: { files_exist: ['.git'] } }),
        ]),
      ),
    );
    expect(outcome!.passed).toBe(true);
    expect(git!.message).toBe('Missing file .git');
    const notFolder = `file://${join(server.workingTree('pass'), 'README.md')}`;
    expect(checkoutFailure(await runSubmission(request(notFolder, [])))).toMatch(/README.md is not a folder$/);
    expect(checkoutFailure(await runSubmission(request(`${url}-missing`, [])))).toMatch(/is not a folder$/);
  });

  it('never reach outside FILE_REPOSITORIES_DIR, by path, by .. or by a link, nor its folder itself', async () => {
    // The git server's folder stands for the data folder: beside the repositories folder, holding a secret.
    const base = dirname(trees());
    const secret = `secret-${randomUUID()}`;
    await writeFile(join(base, 'signing-secret'), secret);
    const inside = await mkdtemp(join(trees(), 'links-'));
    await symlink(base, join(inside, 'data'));
    await mkdir(join(inside, 'gitlink'));
    await symlink(join(base, 'served', 'pass.git'), join(inside, 'gitlink', '.git'));
    process.env.FILE_REPOSITORIES_DIR = trees();
    const leak = testCase({ command: 'cat signing-secret; cat */signing-secret; ls -la', expect: { stdout: 'nothing' } });
    const outside = (path: string) => `Could not check out the repository: ${path} is outside this server's repositories folder`;
    for (const [url, path] of [
      [`file://${base}`, base],
      [`file://${trees()}/pass/../..`, `${base}/`],
      [`file://${trees()}`, trees()],
      [`file://${inside}/data`, `${inside}/data`],
      [`file://${inside}/data/served/pass.git`, `${inside}/data/served/pass.git`],
      // A .git that leads out of it.
      [`file://${inside}/gitlink`, `${inside}/gitlink/.git`],
    ] as const) {
      const result = await runSubmission(request(url, [leak]));
      expect({ url, result }).toEqual({ url, result: { status: 'checkout-failed', message: outside(path) } });
    }
    // The same folder through a link that stays inside is fine.
    await symlink(server.workingTree('pass'), join(inside, 'pass'));
    const [outcome] = graded(await runSubmission(request(`file://${inside}/pass`, [testCase({ command: 'sh hello.sh' })])));
    expect(outcome!.passed).toBe(true);
  });
});
