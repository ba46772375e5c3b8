import { existsSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { chownTree, copyTree, removeFolder } from '../checkout/files.ts';
import { evaluate } from './evaluate.ts';
import type { CaseLimits, HarnessJob, HarnessResult, HarnessTestCase, TestCaseOutcome } from './protocol.ts';
import { runCase, type CaseSetup } from './run-case.ts';
import { STUDENT } from './student-sandbox.ts';
import { discoverToolchain, ETC_GENERATED, isToolchainEtc } from './toolchain.ts';
import { sandboxStartFailure } from './verdict.ts';
import { usedBytes } from './watch.ts';

export interface JobPaths {
  /** The submission's files (never written to). */
  readonly files: string;
  /** Where test cases' folders are made; in a sandbox, a size-capped tmpfs of the harness's own. */
  readonly work: string;
}

const PRLIMIT_CANDIDATES = ['/usr/bin/prlimit', '/bin/prlimit'];

/**
 * Runs every test case of `job`, one after another, each in a fresh copy of `paths.files`, and
 * returns their outcomes. A test case's folder is removed only after all its processes are gone.
 * A harness running as root (a build container) never runs a command as root: commands then run
 * as the student's uid, which owns the test case's folder.
 */
export async function runJob(job: HarnessJob, paths: JobPaths, signal?: AbortSignal): Promise<HarnessResult> {
  await mkdir(paths.work, { recursive: true });
  const toolchain = discoverToolchain('/', (name) => isToolchainEtc(name) || ETC_GENERATED.includes(name));
  const prlimit = PRLIMIT_CANDIDATES.find((candidate) => existsSync(candidate));
  if (job.isolation === 'container') await checkContainerSandbox(paths, toolchain, prlimit, signal);
  const testCases: TestCaseOutcome[] = [];
  for (const testCase of job.testCases) {
    signal?.throwIfAborted();
    testCases.push(await runTestCase(job, testCase, paths, toolchain, prlimit, signal));
  }
  signal?.throwIfAborted();
  return { testCases };
}

async function runTestCase(
  job: HarnessJob,
  testCase: HarnessTestCase,
  paths: JobPaths,
  toolchain: ReturnType<typeof discoverToolchain>,
  prlimit: string | undefined,
  signal?: AbortSignal,
): Promise<TestCaseOutcome> {
  const folder = await mkdtemp(join(paths.work, 'case-'));
  try {
    const [home, tmp, shm] = ['home', 'tmp', 'shm'].map((name) => join(folder, name)) as [string, string, string];
    // In `container` isolation, an empty folder where the test case's own root is mounted.
    const root = job.isolation === 'container' ? join(folder, 'root') : undefined;
    for (const path of [home, tmp, shm, ...(root ? [root] : [])]) await mkdir(path);
    const runAs = process.getuid?.() === 0 ? { uid: STUDENT.uid, gid: STUDENT.gid } : undefined;
    const diskBefore = await usedBytes(paths.work);
    try {
      await copyTree(paths.files, home, { skipNames: ['.git'] });
      if (runAs) await chownTree(folder, runAs);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      const message = `The submission does not fit in the disk limit of ${testCase.limits.diskMib} MiB`;
      return {
        name: testCase.name,
        passed: false,
        message,
        timedOut: false,
        exitCode: null,
        autochecks: [{ description: 'Command', messages: [{ message, type: 'failure' }], diff_viewer: null, expected: null, actual: null }],
      };
    }
    const run = await runCase(
      {
        command: testCase.command,
        limits: testCase.limits,
        timeoutSeconds: testCase.timeout_seconds,
        maxOutputBytes: job.maxOutputBytes,
        isolation: job.isolation,
        home,
        tmp,
        shm,
        disk: { path: paths.work, usedBefore: diskBefore },
        toolchain,
        prlimit,
        runAs,
        ...(root ? { root } : {}),
      },
      signal,
    );
    return await evaluate(testCase, run, home, job.maxOutputBytes);
  } finally {
    await removeFolder(folder);
  }
}

const PROBE_LIMITS: CaseLimits = { processes: 16, memoryMib: 64, cpuSeconds: 10, fileSizeMib: 1, diskMib: 1 };

/**
 * How many times the sandbox check is made before the job fails: on a loaded build a sandbox's
 * first process is sometimes killed as it starts, which another attempt does not meet.
 */
export const SANDBOX_CHECK_ATTEMPTS = 3;

/**
 * Makes one `container` sandbox, whose command checks that it can make no user namespace, before
 * any test case runs, up to SANDBOX_CHECK_ATTEMPTS times: where the build cannot make the sandbox
 * (not root, a kernel that refuses the student's uid a user namespace, a tool missing), the job
 * fails, nothing of it having run, rather than its commands running with less isolation or their
 * failures being graded.
 */
async function checkContainerSandbox(
  paths: JobPaths,
  toolchain: CaseSetup['toolchain'],
  prlimit: string | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const failures: string[] = [];
  for (let attempt = 1; attempt <= SANDBOX_CHECK_ATTEMPTS; attempt++) {
    signal?.throwIfAborted();
    const failure = await containerSandboxFailure(paths, toolchain, prlimit, signal);
    if (failure === undefined) return;
    failures.push(failure);
  }
  const distinct = [...new Set(failures)];
  throw new Error(
    `The build cannot make the test cases' sandbox, so nothing was run (${SANDBOX_CHECK_ATTEMPTS} attempts): ${distinct.join('; ')}`,
  );
}

/** Why one attempt at the sandbox check failed, or undefined when it passed. */
async function containerSandboxFailure(
  paths: JobPaths,
  toolchain: CaseSetup['toolchain'],
  prlimit: string | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const folder = await mkdtemp(join(paths.work, 'check-'));
  try {
    const [home, tmp, shm, root] = ['home', 'tmp', 'shm', 'root'].map((name) => join(folder, name)) as [string, string, string, string];
    for (const path of [home, tmp, shm, root]) await mkdir(path);
    const run = await runCase(
      {
        command: 'if unshare -U true 2>/dev/null; then echo "a user namespace was made" >&2; exit 1; fi',
        limits: PROBE_LIMITS,
        timeoutSeconds: 30,
        maxOutputBytes: 4096,
        isolation: 'container',
        home,
        tmp,
        shm,
        root,
        disk: { path: paths.work, usedBefore: await usedBytes(paths.work) },
        toolchain,
        prlimit,
      },
      signal,
    );
    return run.exitCode !== 0 || run.timedOut ? sandboxStartFailure(run) : undefined;
  } finally {
    await removeFolder(folder);
  }
}
