import { spawn } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chownTree, type Owner } from '../checkout/files.ts';
import { harnessBundle } from '../harness/bundle.ts';
import { acceptHarnessResult, MAX_RESULT_BYTES, newResultKey, ResultRefused } from '../harness/result.ts';
import { readableNode } from './readable-node.ts';
import type { HarnessJob, HarnessResult } from '../harness/protocol.ts';
import { COMMAND_PATH, STUDENT } from '../harness/student-sandbox.ts';
import { discoverToolchain, ETC_GENERATED, toolchainArgs, type ToolchainMount } from '../harness/toolchain.ts';
import { sandboxStartFailure } from '../harness/verdict.ts';
import type { SandboxMode } from '../runner-protocol.ts';

/** Whom the harness runs as inside its sandbox. */
export const GRADER = { uid: 1001, gid: 1001, name: 'grader' } as const;

/**
 * When the server runs as root, each job's sandbox runs as a uid of its own from this range on
 * the host (never root, never a user of the machine); otherwise as the server's own user.
 */
export const JOB_UID_BASE = 1_900_000_000;
export const JOB_UID_COUNT = 10_000;

/** Paths inside the grader's sandbox. */
const INSIDE = { node: '/opt/grader/node', harness: '/opt/grader/harness.mjs', files: '/job/files', work: '/work' } as const;

/** Time a job may take on top of its test cases' time limits (start-up, copying, evaluation). */
export const JOB_OVERHEAD_MS = 30_000;
const CASE_OVERHEAD_MS = 5_000;

/** The host user a job's sandbox runs as: a per-job uid when the server is root, else none (the server's own). */
export function jobUser(jobId: string, isRoot = process.getuid?.() === 0): Owner | undefined {
  if (!isRoot) return undefined;
  let hash = 0;
  for (const char of jobId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const numeric = /^\d+$/.test(jobId) ? Number(jobId) : hash;
  const uid = JOB_UID_BASE + (numeric % JOB_UID_COUNT);
  return { uid, gid: uid };
}

/** /etc/passwd, /etc/group, /etc/hosts and /etc/nsswitch.conf of the sandboxes: no host accounts, no host names. */
export function generatedEtc(): Record<(typeof ETC_GENERATED)[number], string> {
  const user = (account: { uid: number; gid: number; name: string }, home: string) =>
    `${account.name}:x:${account.uid}:${account.gid}::${home}:/bin/sh`;
  return {
    passwd: ['root:x:0:0::/:/bin/sh', user(GRADER, '/work'), user(STUDENT, STUDENT.home), 'nobody:x:65534:65534::/:/bin/sh', ''].join('\n'),
    group: ['root:x:0:', `${GRADER.name}:x:${GRADER.gid}:`, `${STUDENT.name}:x:${STUDENT.gid}:`, 'nogroup:x:65534:', ''].join('\n'),
    hosts: '127.0.0.1 localhost\n::1 localhost\n',
    'nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files\n',
  };
}

export interface GraderSandbox {
  /** The host's toolchain, mounted read-only at the same paths. */
  readonly toolchain: readonly ToolchainMount[];
  /** Folder holding the generated /etc files. */
  readonly etc: string;
  /** The Node binary and the harness bundle. */
  readonly node: string;
  readonly harness: string;
  /** The submission's files, mounted read-only. */
  readonly files: string;
  /** Size of the harness's tmpfs for test cases' folders. */
  readonly diskMib: number;
}

/**
 * bubblewrap arguments for a job: new user (uid 1001), PID, network (loopback only, its own),
 * mount, IPC and UTS namespaces; the toolchain, Node, the harness and the submission's files
 * read-only; a size-capped tmpfs for test cases' folders; its own /proc; nothing else of the
 * host (no data folder, no repositories, no /tmp, no other job); a new session; dies with its
 * parent. User namespaces stay possible inside, for the test cases' own sandboxes.
 */
export function graderSandboxArgs(sandbox: GraderSandbox): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    '--die-with-parent',
    '--new-session',
    // The harness is the namespace's init, so bubblewrap exits only once all of the job is gone.
    '--as-pid-1',
    '--uid',
    String(GRADER.uid),
    '--gid',
    String(GRADER.gid),
    '--hostname',
    'grader',
    ...toolchainArgs(sandbox.toolchain),
    ...ETC_GENERATED.flatMap((name) => ['--ro-bind', join(sandbox.etc, name), `/etc/${name}`]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--ro-bind',
    sandbox.node,
    INSIDE.node,
    '--ro-bind',
    sandbox.harness,
    INSIDE.harness,
    '--ro-bind',
    sandbox.files,
    INSIDE.files,
    '--size',
    String(sandbox.diskMib * 1024 * 1024),
    '--tmpfs',
    INSIDE.work,
    // Where each test case's bubblewrap mounts its new root.
    '--dir',
    '/tmp',
    '--chdir',
    '/',
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
    '--',
    INSIDE.node,
    INSIDE.harness,
    '--files',
    INSIDE.files,
    '--work',
    INSIDE.work,
    '--job',
    '-',
    '--result',
    '-',
  ];
}

const working = new Set<string>();
const BWRAP_MISSING = 'bubblewrap (bwrap) is not installed';
/** How many times the sandbox is tried before a job is failed for want of one. */
const SANDBOX_CHECK_ATTEMPTS = 3;

/**
 * Why no sandbox can be made here (bubblewrap missing, user namespaces refused, no prlimit), or
 * null when a sandbox with a nested sandbox inside starts as `user`.
 */
export async function sandboxProblem(user?: Owner, bwrap = 'bwrap'): Promise<string | null> {
  const key = `${bwrap} ${user?.uid ?? 'self'}`;
  if (working.has(key)) return null;
  const nested = [
    'bwrap',
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--as-pid-1',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--',
    'prlimit',
    '--nproc=64',
    '--',
    '/bin/true',
  ];
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--die-with-parent',
    '--new-session',
    '--as-pid-1',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--',
    ...nested,
  ];
  const probe = () =>
    new Promise<string | null>((resolve) => {
      const child = spawn(bwrap, args, {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { PATH: COMMAND_PATH },
        uid: user?.uid,
        gid: user?.gid,
        timeout: 10_000,
      });
      let errors = '';
      child.stderr.on('data', (chunk: Buffer) => {
        errors = (errors + chunk.toString('utf8')).slice(0, 2000);
      });
      child.on('error', (error) => {
        const code = (error as NodeJS.ErrnoException).code;
        resolve(code === 'ENOENT' ? BWRAP_MISSING : `bubblewrap could not be started (${code ?? error.message})`);
      });
      child.on('close', (code, signal) => {
        if (code === 0) return resolve(null);
        const detail = sandboxStartFailure({
          exitCode: code,
          signal,
          timedOut: false,
          startError: null,
          stderr: errors.split('\n')[0] ?? '',
        });
        resolve(/prlimit/.test(detail) ? 'prlimit (util-linux) is not installed' : `bubblewrap could not create a sandbox: ${detail}`);
      });
    });
  // A loaded machine sometimes kills a sandbox's first process as it starts: only a problem that
  // holds for every attempt is one.
  let problem: string | null = null;
  for (let attempt = 1; attempt <= SANDBOX_CHECK_ATTEMPTS; attempt++) {
    problem = await probe();
    if (problem === null || problem === BWRAP_MISSING) break;
  }
  if (problem === null) working.add(key);
  return problem;
}

/** What a student and the staff read when a job cannot be graded for want of a sandbox. */
export const sandboxUnavailableMessage = (problem: string): string =>
  `Grading is unavailable: this server cannot run submissions in a sandbox (${problem}). Nothing was run; an administrator must fix the server, then submit again.`;

export interface HarnessLaunch {
  readonly mode: SandboxMode;
  /** The submission's files: the runner's checkout inside `jobFolder`, never written by anyone after it. */
  readonly files: string;
  readonly job: HarnessJob;
  /** A private folder of this job (0700) where the launcher writes the bundle and /etc files. */
  readonly jobFolder: string;
  /** The host user the sandbox runs as (see jobUser); undefined: the server's own. */
  readonly user?: Owner;
  readonly signal?: AbortSignal;
}

/** The time the harness may take in all: its test cases' time limits plus overheads. */
export const jobTimeLimitMs = (testCases: readonly { readonly timeout_seconds: number }[]): number =>
  testCases.reduce((sum, testCase) => sum + testCase.timeout_seconds * 1000 + CASE_OVERHEAD_MS, JOB_OVERHEAD_MS);

/**
 * Runs the harness on `launch.files`: in `bwrap` mode inside the grader's sandbox (each test
 * case in a sandbox of its own within it), in `unsafe-none` mode as a plain process. Resolves
 * with its result once the harness and every process of the job have ended; rejects (a fault of
 * this machine) when the harness fails, answers nonsense, or exceeds the job's time limit.
 */
export async function runHarness(launch: HarnessLaunch): Promise<HarnessResult> {
  const harness = join(launch.jobFolder, 'harness.mjs');
  await writeFile(harness, await harnessBundle(), { mode: 0o444 });
  const etc = join(launch.jobFolder, 'etc');
  await mkdir(etc);
  for (const [name, content] of Object.entries(generatedEtc())) await writeFile(join(etc, name), content, { mode: 0o444 });
  const work = join(launch.jobFolder, 'work');
  if (launch.mode === 'unsafe-none') await mkdir(work);
  await chmod(launch.jobFolder, 0o700);
  if (launch.user) await chownTree(launch.jobFolder, launch.user);

  const diskMib = Math.max(...launch.job.testCases.map((testCase) => testCase.limits.diskMib), 1);
  // The job's own uid may not be able to enter the folder this Node lives in.
  const node = launch.user ? await readableNode() : process.execPath;
  const [file, args, cwd] =
    launch.mode === 'bwrap'
      ? ['bwrap', graderSandboxArgs({ toolchain: discoverToolchain(), etc, node, harness, files: launch.files, diskMib }), '/']
      : [node, [harness, '--files', launch.files, '--work', work, '--job', '-', '--result', '-'], work];
  const resultKey = newResultKey();
  const job: HarnessJob = { ...launch.job, isolation: launch.mode === 'bwrap' ? 'namespaces' : 'none', resultKey };
  return new Promise<HarnessResult>((resolve, reject) => {
    const child = spawn(file, args, {
      cwd,
      env: { PATH: COMMAND_PATH, LANG: 'C.UTF-8', HOME: launch.mode === 'bwrap' ? INSIDE.work : work },
      stdio: ['pipe', 'pipe', 'pipe'],
      uid: launch.user?.uid,
      gid: launch.user?.gid,
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: string | undefined;
    const stop = (reason: string) => {
      failure ??= reason;
      child.kill('SIGKILL');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_RESULT_BYTES) stop('The grading harness answered more than it ever should.');
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-8000);
    });
    const limitMs = jobTimeLimitMs(launch.job.testCases);
    const timer = setTimeout(() => stop(`The grading harness took longer than ${Math.round(limitMs / 1000)} s and was stopped.`), limitMs);
    const onAbort = () => stop(String((launch.signal?.reason as Error | undefined)?.message ?? 'The run was stopped.'));
    launch.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      failure ??= `The grading harness could not be started: ${error.message}`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      launch.signal?.removeEventListener('abort', onAbort);
      if (launch.signal?.aborted) return reject(launch.signal.reason as Error);
      if (failure) return reject(new Error(failure));
      if (code !== 0)
        return reject(new Error(`The grading harness failed (${signal ?? `exit code ${code}`}): ${stderr.trim().slice(-2000)}`));
      try {
        resolve(acceptHarnessResult(Buffer.concat(stdout), launch.job.testCases, resultKey));
      } catch (error) {
        const why = error instanceof ResultRefused ? ` (${error.message})` : '';
        reject(new Error(`The grading harness answered something other than its result${why}.`));
      }
    });
    child.stdin.on('error', () => undefined); // a harness that died early is reported on close
    child.stdin.end(JSON.stringify(job));
  });
}
