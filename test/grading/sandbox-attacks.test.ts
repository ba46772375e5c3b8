import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, chown, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { TestCase } from '#shared/gradeables/gradeable.ts';
import { JOB_UID_BASE, jobUser } from '#shared/grading/runner/launcher.ts';
import { readableNode } from '#shared/grading/runner/readable-node.ts';
import { runnerEnvironment } from '#shared/grading/runner/in-process.ts';
import { runnerEntry } from '#shared/grading/runner/bundle.ts';
import { runSubmission } from '#shared/grading/runner/runner.ts';
import type { RunRequest, RunResult, TestCaseOutcome } from '#shared/grading/runner-protocol.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { processesWith, request, testCase } from './fixtures.ts';
import { hostile } from './hostile.ts';

/**
 * The attacks on the sandbox's guarantees (docs/sandbox.md), made by a hostile repository against the runner (checkout outside,
 * harness and test commands in the sandbox), each seen to fail. grading-sandbox-e2e.test.ts
 * makes the same attacks through the API and the worker.
 */
const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
let git: GitServer;
/** This file's own temporary folder: jobs' folders are made here, so leftovers can be seen. */
let scratch: string;
let jobsTmp: string;
/** Root only: Node and the runner's entry as this process has them, for a runner started as nobody. */
let forNobody: [node: string, entry: string] | undefined;
/** Two services on the host's loopback, standing in for the local API: IPv4 and IPv6. */
let listeners: Server[];

const listen = (host: string) =>
  new Promise<Server>((resolve) => {
    const server = createServer((socket) => {
      socket.on('error', () => undefined); // a client that resets the connection is no fault here
      socket.end('hello from the host\n');
    });
    server.listen(0, host, () => resolve(server));
  });
const portOf = (server: Server) => (server.address() as { port: number }).port;

beforeAll(async () => {
  git = await startGitServer({ hostile });
  scratch = await mkdtemp(join(tmpdir(), 'sandbox-attacks-'));
  jobsTmp = join(scratch, 'jobs');
  await mkdir(jobsTmp);
  await chmod(scratch, 0o755);
  await chmod(jobsTmp, 0o1777); // a launcher run as nobody makes its jobs' folders here too
  // Before TMPDIR names jobsTmp: what the runner's bundle and, as root from a folder nobody else
  // may enter, the copy of Node that sandboxes run (runner/readable-node.ts) keep stays out of it.
  if (isRoot) forNobody = await Promise.all([readableNode(), runnerEntry()]);
  vi.stubEnv('TMPDIR', jobsTmp);
  listeners = [await listen('127.0.0.1'), await listen('::1')];
});
afterAll(async () => {
  vi.unstubAllEnvs();
  for (const listener of listeners ?? []) listener.close();
  await git?.close();
  await rm(scratch, { recursive: true, force: true });
});

const submit = (testCases: TestCase[], overrides: Partial<RunRequest> = {}) =>
  runSubmission(request(git.repositoryUrl('hostile'), testCases, { allowedHosts: [git.host], ...overrides }));

const graded = (result: RunResult): readonly TestCaseOutcome[] => {
  if (result.status !== 'graded') throw new Error(`expected graded, got ${JSON.stringify(result)}`);
  return result.testCases;
};

/** What a test case printed: its expectation (`stdout: ''`) fails, so the output is shown. */
const printed = (outcome: TestCaseOutcome | undefined): string => {
  const shown = outcome?.autochecks.find((check) => check.description === 'Standard output');
  if (shown === undefined) throw new Error(`no output shown: ${JSON.stringify(outcome)}`);
  return shown.actual ?? '';
};
const show = (name: string, command: string, overrides: Partial<TestCase> = {}) =>
  testCase({ name, command, expect: { stdout: '' }, ...overrides });

/** Processes on the host running as `uid`. */
async function processesOf(uid: number): Promise<string[]> {
  try {
    return (await run('pgrep', ['-a', '-U', String(uid)])).stdout.trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

async function findFile(folder: string, name: string): Promise<string | undefined> {
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.name === name && entry.isFile()) return join(entry.parentPath, entry.name);
  }
  return undefined;
}

/** Runs a fixture script on the host, outside any sandbox: the attack is real there. */
async function outside(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, { cwd: git.workingTree('hostile'), timeout: 20_000 }).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  return stdout;
}

function networkTargets(): string[] {
  const dynamoDb = new URL(inject('dynamodbEndpoint'));
  return [
    `127.0.0.1:${dynamoDb.port}`,
    git.host,
    `127.0.0.1:${portOf(listeners[0]!)}`,
    `[::1]:${portOf(listeners[1]!)}`,
    `localhost:${portOf(listeners[0]!)}`,
  ];
}

describe('1. no network while test commands run', () => {
  it('reaches neither DynamoDB Local, the git server nor the API on loopback, and has no route to any other host', async () => {
    const targets = networkTargets();
    const [outcome] = graded(await submit([show('network', `perl net.pl ${targets.join(' ')}`)]));
    const text = printed(outcome);
    expect(text).toContain('control: connected'); // the same calls work inside the sandbox's own loopback
    for (const target of targets) expect(text).toContain(`target ${target}: unreachable`);
    expect(text).not.toContain('CONNECTED');
    expect(text).toContain('interfaces: lo\n');
    expect(text).toContain('routes: 0\n');
  });

  it('(the same script outside the sandbox reaches them all)', async () => {
    const text = await outside('perl', ['net.pl', ...networkTargets()]);
    for (const target of networkTargets()) expect(text).toContain(`target ${target}: CONNECTED`);
  });
});

describe('2. nothing visible but the job’s own files and a read-only toolchain', () => {
  it("sees no data folder, secret, repositories, project, other job's files or other process", async () => {
    const data = join(scratch, 'data');
    await mkdir(data, { recursive: true, mode: 0o755 });
    await writeFile(join(data, 'shared-local-instance.db'), 'the database', { mode: 0o644 });
    // Another job, running meanwhile: its files are on this machine, and must stay out of reach.
    const otherMarker = `other-job-${randomUUID()}`;
    const other = submit([testCase({ command: `sh sleep.sh ${otherMarker} 4` })]);
    let otherFile: string | undefined;
    for (let poll = 0; poll < 100 && !otherFile; poll++) {
      otherFile = await findFile(jobsTmp, 'sleep.sh');
      if (!otherFile) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(otherFile, 'the other job checked out').toBeDefined();
    const paths = [
      inject('signingSecretFile'),
      data,
      join(data, 'shared-local-instance.db'),
      git.workingTree('hostile'),
      join(process.cwd(), 'package.json'),
      otherFile!,
      jobsTmp,
      '/etc/shadow',
      '/root',
      '/var',
      '/run',
      '/sys/fs/cgroup',
    ];
    const readOnly = ['/usr/bin/x', '/etc/passwd', '/x', '/bin/x', '/dev/x', '/proc/x', '/home/x', '/opt/grader/x'];
    const [peek, write] = graded(
      await submit([
        show('peek', `sh peek.sh ${paths.join(' ')}`),
        show(
          'write',
          `for path in ./mine ${readOnly.join(' ')}; do if touch "$path" 2>/dev/null; then echo "WROTE $path"; else echo "refused $path"; fi; done`,
        ),
      ]),
    );
    const text = printed(peek);
    expect(text).toContain('control: my own file');
    for (const path of paths) expect(text).toContain(`hidden ${path}`);
    expect(text).not.toContain('SEEN');
    expect(text).not.toContain('SAW A PROCESS OUTSIDE');
    expect(Number(/processes: (\d+)/.exec(text)?.[1])).toBeLessThan(10); // its own shells and what they run
    expect(text).toContain('uid: 1002');
    expect(printed(write)).toContain('WROTE ./mine'); // its own folder is writable …
    for (const path of readOnly) expect(printed(write)).toContain(`refused ${path}`); // … nothing else is
    expect(graded(await other)[0]!.passed).toBe(true);
  });

  it('(the same script outside the sandbox sees the secret)', async () => {
    expect(await outside('sh', ['peek.sh', inject('signingSecretFile')])).toContain(`SEEN ${inject('signingSecretFile')}`);
  });
});

describe('3 and 4. nothing outlives its test case or job; no job affects another', () => {
  it('kills a double-forked daemon before the result exists; the next test case and the next job find nothing of it', async () => {
    const marker = `daemon-${randomUUID()}`;
    const [daemon, after] = graded(await submit([show('daemon', `sh daemon.sh ${marker}`), show('after', 'sh traces.sh')]));
    expect(await processesWith(marker)).toEqual([]); // dead by the time the result is returned
    expect(printed(daemon)).toMatch(/started [1-9]/); // it really ran
    const traces = printed(after);
    expect(traces).toContain('control: my own file');
    expect(traces).toContain('heartbeats: 0');
    expect(traces).not.toContain('heartbeat ');
    const [nextJob] = graded(await submit([show('next job', 'sh traces.sh')]));
    expect(printed(nextJob)).toContain('heartbeats: 0');
  });

  // Not as root, every job runs as the tests' own user, by design: there is no other uid to take.
  it.skipIf(!isRoot)('runs each job as a uid of its own on the host, never root (needs the tests to run as root)', async () => {
    const markers = [`uid-a-${randomUUID()}`, `uid-b-${randomUUID()}`];
    const ticket = Math.floor(Math.random() * 1e6);
    const jobs = markers.map((marker, index) =>
      submit([testCase({ command: `sh sleep.sh ${marker} 3 ${marker}` })], { jobId: String(ticket + index) }),
    );
    const uids: number[] = [];
    for (const marker of markers) {
      for (let poll = 0; poll < 100; poll++) {
        const [line] = await processesWith(marker);
        if (line) {
          const status = await readFile(`/proc/${line.split(' ')[0]}/status`, 'utf8');
          uids.push(Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]));
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    await Promise.all(jobs);
    expect(uids).toHaveLength(2);
    expect(uids[0]).not.toBe(uids[1]);
    for (const uid of uids) expect(uid).toBeGreaterThanOrEqual(JOB_UID_BASE);
    for (const uid of uids) expect(await processesOf(uid)).toEqual([]);
  });

  it('deletes nothing outside the sandbox, whatever links a leftover process swaps in', async () => {
    const canary = join(scratch, 'canary');
    await mkdir(join(canary, 'sub'), { recursive: true });
    await writeFile(join(canary, 'sub', 'keep.txt'), 'keep me');
    await chmod(canary, 0o777); // writable by anyone: only the sandbox stands in the way
    const marker = `swap-${randomUUID()}`;
    graded(await submit([show('swap', `sh swap.sh ${canary} ${marker}`), testCase({ command: 'ls victim deep' })]));
    expect(await readFile(join(canary, 'sub', 'keep.txt'), 'utf8')).toBe('keep me');
    expect(await processesWith(marker)).toEqual([]);
    expect(await readdir(jobsTmp)).toEqual([]); // every job's folder is gone
  });
});

describe('5. limits per test case, each with a clear message', () => {
  it('stops a fork bomb, a memory hog, a CPU spin, a huge file and a full disk, and leaves nothing behind', async () => {
    const jobId = String(Math.floor(Math.random() * 1e6));
    const outcomes = graded(
      await submit(
        [
          testCase({ name: 'fork bomb', command: 'sh fork.sh', limits: { processes: 32 } }),
          testCase({ name: 'fork loop', command: 'perl fork-loop.pl', limits: { processes: 32 } }),
          testCase({ name: 'memory', command: 'perl memory.pl', limits: { memory_mib: 128 } }),
          testCase({ name: 'memory of four', command: 'sh memory-split.sh', limits: { memory_mib: 128 } }),
          testCase({ name: 'cpu', command: 'sh spin.sh', timeout_seconds: 10, limits: { cpu_seconds: 1 } }),
          testCase({ name: 'file size', command: 'sh huge-file.sh', limits: { file_size_mib: 8 } }),
          testCase({ name: 'disk', command: 'sh fill-disk.sh', limits: { disk_mib: 32 } }),
          testCase({ name: 'shared memory', command: 'sh fill-shm.sh', limits: { disk_mib: 32 } }),
          testCase({ name: 'wall time', command: 'sleep 30', timeout_seconds: 1 }),
          testCase({ name: 'within limits', command: 'sh -c "echo fine"', expect: { stdout: 'fine\n' } }),
        ],
        { jobId },
      ),
    );
    expect(Object.fromEntries(outcomes.map((outcome) => [outcome.name, outcome.message]))).toEqual({
      // Which comes first on a loaded machine, the watcher's kill or a failed fork, is a race: both say why.
      'fork bomb': expect.stringMatching(
        /^(Killed: process limit of 32 exceeded|Process limit of 32 exceeded: a process could not be started)$/,
      ),
      'fork loop': 'Killed: process limit of 32 exceeded',
      memory: expect.stringMatching(/^(Killed: memory limit of 128 MiB exceeded|Memory limit of 128 MiB exceeded: an allocation failed)$/),
      'memory of four': 'Killed: memory limit of 128 MiB exceeded',
      cpu: 'Killed: CPU time limit of 1 s exceeded',
      'file size': 'Killed: file size limit of 8 MiB exceeded',
      disk: expect.stringMatching(/^(Killed: disk limit of 32 MiB exceeded|Disk limit of 32 MiB exceeded: no space was left)$/),
      'shared memory': expect.stringMatching(/^(Killed: disk limit of 32 MiB exceeded|Disk limit of 32 MiB exceeded: no space was left)$/),
      'wall time': 'Timed out after 1 s',
      'within limits': 'Passed',
    });
    if (isRoot) expect(await processesOf(jobUser(jobId)!.uid)).toEqual([]);
    expect(await readdir(jobsTmp)).toEqual([]);
  }, 60_000);
});

describe('6. the grader cannot be made to lie', () => {
  it('reports the truth although the student fakes results everywhere and kills every process it sees', async () => {
    const outcomes = graded(
      await submit([
        show('attack', 'sh lie.sh'),
        testCase({ name: 'fails', command: 'false', expect: { exit_code: 0 } }),
        testCase({ name: 'passes', command: 'true', expect: { exit_code: 0 } }),
      ]),
    );
    expect(outcomes.map((outcome) => [outcome.name, outcome.passed, outcome.message])).toEqual([
      ['attack', false, 'Wrong output'],
      ['fails', false, 'Exited with code 1 (expected 0)'],
      ['passes', true, 'Passed'],
    ]);
    const text = printed(outcomes[0]);
    expect(text).toContain('"name":"Rigged"'); // it did print its fake result …
    expect(text).not.toContain('FOUND THE HARNESS'); // … could not find the harness …
    expect(text).toContain('end'); // … and ran to its end
  });
});

describe('7. the checkout stays outside the sandbox', () => {
  it('gives the sandbox the files only: no .git, no way back to the repository', async () => {
    const [outcome] = graded(await submit([show('files', `ls -a; perl net.pl ${git.host}`)]));
    const text = printed(outcome);
    expect(text).not.toContain('.git\n');
    expect(text).toContain('own.txt');
    expect(text).toContain(`target ${git.host}: unreachable`);
  });
});

// Not as root, every test above already runs the launcher as an ordinary user (the tests' own);
// as root, this one starts it as uid 65534, which only root can do.
describe('the same attacks with the launcher running as an ordinary user', () => {
  // Node and the runner from where nobody may read them, even when the project's folder is root's alone.
  const runnerForNobody = async () => {
    const [node, entry] = forNobody!;
    if (!entry.endsWith('.mjs')) return { node, cli: entry }; // no bundle: the sources, which must be readable then
    const cli = join(scratch, 'runner.mjs');
    await copyFile(entry, cli);
    await chmod(cli, 0o444);
    // The runner starts its checkout process from that one's bundle, beside its own.
    for (const name of (await readdir(dirname(entry))).filter((file) => /^checkout-\w+\.mjs$/.test(file))) {
      await copyFile(join(dirname(entry), name), join(scratch, name));
      await chmod(join(scratch, name), 0o444);
    }
    return { node, cli };
  };
  const runAsNobody = async (runRequest: RunRequest) => {
    const { node, cli } = await runnerForNobody();
    return new Promise<RunResult>((resolve, reject) => {
      const child = spawn(node, [cli], {
        env: { ...runnerEnvironment(), TMPDIR: jobsTmp },
        uid: NOBODY,
        gid: NOBODY,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // The runner writes its checkout's commit as a line of its own first; the result is the last line.
      child.on('close', (code) => {
        if (code !== 0) return reject(new Error(`runner failed (${code}): ${stderr}`));
        try {
          resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as RunResult);
        } catch (error) {
          reject(new Error(`runner answered something other than a result line: ${stdout.slice(-2000)}`, { cause: error }));
        }
      });
      child.stdin.end(JSON.stringify(runRequest));
    });
  };

  it.skipIf(!isRoot)(
    'holds as uid 65534: no network, no view of its own files outside, no survivor, limits, no lie (skipped unless root: the tests then run as an ordinary user already)',
    async () => {
      // A file only uid 65534 may read: a command running as that uid outside a sandbox could.
      const secret = join(scratch, 'nobody-secret');
      await writeFile(secret, 'the server user’s secret', { mode: 0o600 });
      await chown(secret, NOBODY, NOBODY);
      const marker = `nobody-daemon-${randomUUID()}`;
      const targets = networkTargets();
      const outcomes = graded(
        await runAsNobody(
          request(
            git.repositoryUrl('hostile'),
            [
              show('network', `perl net.pl ${targets.join(' ')}`),
              show('peek', `sh peek.sh ${secret} ${inject('signingSecretFile')} ${jobsTmp}`),
              show('daemon', `sh daemon.sh ${marker}`),
              show('after', 'sh traces.sh'),
              testCase({ name: 'fork loop', command: 'perl fork-loop.pl', limits: { processes: 32 } }),
              show('attack', 'sh lie.sh'),
              testCase({ name: 'fails', command: 'false' }),
            ],
            { allowedHosts: [git.host] },
          ),
        ),
      );
      expect(await processesWith(marker)).toEqual([]);
      const byName = Object.fromEntries(outcomes.map((outcome) => [outcome.name, outcome]));
      expect(printed(byName.network)).toContain('control: connected');
      expect(printed(byName.network)).not.toContain('CONNECTED');
      expect(printed(byName.peek)).toContain(`hidden ${secret}`);
      expect(printed(byName.peek)).not.toContain('SEEN');
      expect(printed(byName.after)).toContain('heartbeats: 0');
      expect(byName['fork loop']!.message).toBe('Killed: process limit of 32 exceeded');
      expect(printed(byName.attack)).not.toContain('FOUND THE HARNESS');
      expect(byName.fails!.message).toBe('Exited with code 1 (expected 0)');
      expect(await readdir(jobsTmp)).toEqual([]);
    },
    60_000,
  );
});
