import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateGradeable } from '#shared/gradeables/validate.ts';
import type { CaseLimits } from '#shared/grading/harness/protocol.ts';
import { rlimitArgs, studentSandboxArgs } from '#shared/grading/harness/student-sandbox.ts';
import { discoverToolchain, toolchainArgs } from '#shared/grading/harness/toolchain.ts';
import { stopReason, type CaseEnd } from '#shared/grading/harness/verdict.ts';
import { descendantsOf, parseCpuSeconds, parseStatus } from '#shared/grading/harness/watch.ts';
import {
  generatedEtc,
  graderSandboxArgs,
  JOB_UID_BASE,
  JOB_UID_COUNT,
  jobTimeLimitMs,
  jobUser,
  sandboxProblem,
} from '#shared/grading/runner/launcher.ts';
import { caseLimits, DEFAULT_BOUNDS, limitBounds } from '#shared/grading/worker/limits.ts';
import { sandboxMode } from '#shared/grading/settings.ts';

const limits: CaseLimits = { processes: 64, memoryMib: 512, cpuSeconds: 10, fileSizeMib: 64, diskMib: 256 };
const scratch = await mkdtemp(join(tmpdir(), 'sandbox-rules-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('limits in force', () => {
  it('take the test case’s own, else the gradeable’s, else the default; CPU time defaults to the time limit', () => {
    expect(caseLimits({ timeout_seconds: 2.5 }, undefined, DEFAULT_BOUNDS)).toEqual({
      processes: 64,
      memoryMib: 512,
      cpuSeconds: 3,
      fileSizeMib: 64,
      diskMib: 256,
    });
    expect(caseLimits({ timeout_seconds: 10 }, { memory_mib: 128, disk_mib: 32 }, DEFAULT_BOUNDS)).toMatchObject({
      memoryMib: 128,
      diskMib: 32,
      cpuSeconds: 10,
    });
    expect(
      caseLimits({ timeout_seconds: 10, limits: { memory_mib: 64, cpu_seconds: 2 } }, { memory_mib: 128 }, DEFAULT_BOUNDS),
    ).toMatchObject({ memoryMib: 64, cpuSeconds: 2 });
  });

  it("are capped at the operator's bounds", () => {
    const bounds = { ...DEFAULT_BOUNDS, memoryMib: 96, processes: 16 };
    expect(caseLimits({ timeout_seconds: 10, limits: { memory_mib: 4096, processes: 100 } }, undefined, bounds)).toMatchObject({
      memoryMib: 96,
      processes: 16,
    });
    expect(caseLimits({ timeout_seconds: 10 }, undefined, { ...DEFAULT_BOUNDS, memoryMib: 256 }).memoryMib).toBe(256); // the default too
  });

  it('read the bounds from GRADING_MAX_*, reporting values that are not whole numbers of at least 1', () => {
    expect(limitBounds({})).toEqual({ bounds: DEFAULT_BOUNDS, problems: [] });
    expect(limitBounds({ GRADING_MAX_MEMORY_MIB: '4096', GRADING_MAX_PROCESSES: ' ' }).bounds).toEqual({
      ...DEFAULT_BOUNDS,
      memoryMib: 4096,
    });
    const { bounds, problems } = limitBounds({
      GRADING_MAX_DISK_MIB: '0',
      GRADING_MAX_CPU_SECONDS: '1.5',
      GRADING_MAX_FILE_SIZE_MIB: 'lots',
    });
    expect(bounds).toEqual(DEFAULT_BOUNDS);
    expect(problems).toEqual([
      'GRADING_MAX_CPU_SECONDS must be a whole number of at least 1, not "1.5"; using 600',
      'GRADING_MAX_FILE_SIZE_MIB must be a whole number of at least 1, not "lots"; using 1024',
      'GRADING_MAX_DISK_MIB must be a whole number of at least 1, not "0"; using 1024',
    ]);
  });
});

describe('gradeable limits', () => {
  const context = { timeZone: 'UTC', now: new Date('2026-01-01T00:00:00Z') };
  const gradeable = (autograding: unknown) => validateGradeable({ id: 'g', title: 'G', type: 'Electronic File', autograding }, context);

  it('are kept, for the gradeable and per test case, and left out when not given', () => {
    const { document } = gradeable({
      limits: { memory_mib: 256, other: 1 },
      test_cases: [
        { name: 'a', command: 'true', limits: { processes: 8 } },
        { name: 'b', command: 'true' },
      ],
    });
    expect(document?.autograding).toEqual({
      limits: { memory_mib: 256 },
      test_cases: [
        expect.objectContaining({ name: 'a', limits: { processes: 8 } }),
        expect.not.objectContaining({ limits: expect.anything() }),
      ],
    });
  });

  it('must be whole numbers within their ranges', () => {
    const { errors } = gradeable({
      limits: { disk_mib: 0 },
      test_cases: [{ name: 'a', command: 'true', limits: { memory_mib: 100.5, processes: 100_000, cpu_seconds: 'ten' } }],
    });
    expect(errors).toEqual([
      { path: 'autograding.test_cases[0].limits.processes', message: 'autograding.test_cases[0].limits.processes must be at most 4096.' },
      {
        path: 'autograding.test_cases[0].limits.memory_mib',
        message: 'autograding.test_cases[0].limits.memory_mib must be a whole number.',
      },
      { path: 'autograding.test_cases[0].limits.cpu_seconds', message: 'autograding.test_cases[0].limits.cpu_seconds must be a number.' },
      { path: 'autograding.limits.disk_mib', message: 'autograding.limits.disk_mib must be at least 1.' },
    ]);
    expect(gradeable({ limits: 'big', test_cases: [{ name: 'a', command: 'true' }] }).errors).toEqual([
      { path: 'autograding.limits', message: 'autograding.limits must be an object.' },
    ]);
  });
});

describe('the sandbox switch', () => {
  it('is the sandbox unless exactly unsafe-none; a typo keeps the sandbox and is reported', () => {
    expect(sandboxMode({})).toEqual({ mode: 'bwrap' });
    expect(sandboxMode({ GRADING_SANDBOX: 'bwrap' })).toEqual({ mode: 'bwrap' });
    expect(sandboxMode({ GRADING_SANDBOX: 'unsafe-none' })).toEqual({ mode: 'unsafe-none' });
    expect(sandboxMode({ GRADING_SANDBOX: 'none' })).toEqual({ mode: 'bwrap', problem: expect.stringContaining('not "none"') });
  });
});

describe('why a test case stopped', () => {
  const end = (overrides: Partial<CaseEnd>): CaseEnd => ({
    exitCode: 0,
    signal: null,
    timedOut: false,
    outputExceeded: false,
    startError: null,
    killedAt: null,
    cpuLimitReached: false,
    stderr: '',
    ...overrides,
  });
  const reason = (overrides: Partial<CaseEnd>) => stopReason(end(overrides), limits, 5, 64 * 1024);

  it('names the limit the harness killed at, before the time limit', () => {
    expect(reason({ killedAt: 'processes', timedOut: true })).toBe('Killed: process limit of 64 exceeded');
    expect(reason({ killedAt: 'memory', exitCode: 137 })).toBe('Killed: memory limit of 512 MiB exceeded');
    expect(reason({ killedAt: 'disk' })).toBe('Killed: disk limit of 256 MiB exceeded');
    expect(reason({ timedOut: true, exitCode: null, signal: 'SIGKILL' })).toBe('Timed out after 5 s');
    expect(reason({ outputExceeded: true })).toBe('Stopped after writing more than 640 KB of output');
    expect(reason({ startError: 'spawn bwrap ENOENT' })).toBe('The command could not be started');
  });

  it('reads the limits the kernel enforced from the exit status and from shells’ reports', () => {
    expect(reason({ exitCode: 152 })).toBe('Killed: CPU time limit of 10 s exceeded');
    expect(reason({ exitCode: null, signal: 'SIGXCPU' })).toBe('Killed: CPU time limit of 10 s exceeded');
    expect(reason({ exitCode: 137, cpuLimitReached: true })).toBe('Killed: CPU time limit of 10 s exceeded');
    expect(reason({ exitCode: 0, cpuLimitReached: true })).toBeNull(); // used its time, within it
    expect(reason({ exitCode: 0, stderr: 'spin.sh: 1: CPU time limit exceeded\n' })).toBe('Killed: CPU time limit of 10 s exceeded');
    expect(reason({ exitCode: 153 })).toBe('Killed: file size limit of 64 MiB exceeded');
    expect(reason({ exitCode: 0, stderr: 'File size limit exceeded\n' })).toBe('Killed: file size limit of 64 MiB exceeded');
    expect(reason({ exitCode: 0, stderr: 'fork.sh: 1: Cannot fork\n' })).toBe(
      'Process limit of 64 exceeded: a process could not be started',
    );
  });

  it('takes a failed call for the limit only when the command failed', () => {
    expect(reason({ exitCode: 1, stderr: 'Out of memory!\n' })).toBe('Memory limit of 512 MiB exceeded: an allocation failed');
    expect(reason({ exitCode: 1, stderr: "head: error writing 'part3': No space left on device\n" })).toBe(
      'Disk limit of 256 MiB exceeded: no space was left',
    );
    expect(reason({ exitCode: 1, stderr: 'write: File too large\n' })).toBe('File size limit of 64 MiB exceeded: a write failed');
    expect(reason({ exitCode: 0, stderr: 'Out of memory! (handled)\n' })).toBeNull();
    expect(reason({ exitCode: 1, stderr: 'assertion failed\n' })).toBeNull();
    expect(reason({ exitCode: 0 })).toBeNull();
  });
});

describe("reading a test case's processes", () => {
  it('parses /proc/<pid>/status and the CPU time of /proc/<pid>/stat', () => {
    expect(parseStatus('Name:\tsh\nPPid:\t41\nThreads:\t3\nRssAnon:\t  2048 kB\n')).toEqual({ ppid: 41, threads: 3, rssAnonKib: 2048 });
    expect(parseStatus('Name:\tkthread\n')).toEqual({ ppid: 0, threads: 1, rssAnonKib: 0 });
    // Field 2 may hold spaces and parentheses; utime and stime are fields 14 and 15.
    const stat = '123 (a) b (c)) R 1 123 123 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 100';
    expect(parseCpuSeconds(stat)).toBe(3);
  });

  it('finds every descendant of the sandbox, orphans adopted inside it included, and nothing else', () => {
    const processes = [
      { pid: 10, ppid: 1 }, // the harness
      { pid: 20, ppid: 10 }, // the test case's bubblewrap
      { pid: 21, ppid: 20 }, // the command, init of its namespace
      { pid: 22, ppid: 21 },
      { pid: 23, ppid: 21 }, // a daemon whose parent died, adopted by the namespace's init
      { pid: 24, ppid: 23 },
      { pid: 30, ppid: 1 }, // something else
    ];
    expect(
      descendantsOf(processes, 20)
        .map((process) => process.pid)
        .sort(),
    ).toEqual([21, 22, 23, 24]);
    expect(descendantsOf(processes, 99)).toEqual([]);
  });
});

describe('the sandboxes’ arguments', () => {
  const toolchain = [
    { kind: 'ro-bind', path: '/usr' },
    { kind: 'symlink', path: '/bin', target: 'usr/bin' },
  ] as const;

  it("run a test case's command as init of new namespaces, as uid 1002, with no further user namespaces and its rlimits", () => {
    const args = studentSandboxArgs({
      toolchain,
      home: '/work/c/home',
      tmp: '/work/c/tmp',
      shm: '/work/c/shm',
      prlimit: '/usr/bin/prlimit',
      limits,
      command: 'make test',
    });
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--as-pid-1'])
      expect(args).toContain(flag);
    expect(args.join(' ')).toContain('--uid 1002 --gid 1002');
    expect(args.join(' ')).toContain('--ro-bind /usr /usr --symlink usr/bin /bin');
    expect(args.join(' ')).toContain('--bind /work/c/home /home/student --bind /work/c/tmp /tmp --bind /work/c/shm /dev/shm');
    // Every writable mount is one of the test case's folders; the root and /dev are read-only.
    const writable = args.flatMap((arg, index) => (arg === '--bind' ? [args[index + 1]] : []));
    expect(writable).toEqual(['/work/c/home', '/work/c/tmp', '/work/c/shm']);
    expect(args.join(' ')).toContain('--remount-ro /dev --remount-ro / --');
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['/usr/bin/prlimit', ...rlimitArgs(limits), '--', '/bin/sh', '-c', 'make test']);
    expect(rlimitArgs(limits)).toEqual([
      '--nproc=64',
      `--data=${512 * 1024 * 1024}`,
      '--cpu=10:11',
      `--fsize=${64 * 1024 * 1024}`,
      '--core=0',
    ]);
  });

  it('give the harness only the toolchain, generated /etc files, Node, itself, the files read-only and a size-capped tmpfs', () => {
    const args = graderSandboxArgs({
      toolchain,
      etc: '/jobs/j1/etc',
      node: '/opt/node/bin/node',
      harness: '/jobs/j1/harness.mjs',
      files: '/jobs/j1/checkout/files',
      diskMib: 64,
    });
    for (const flag of ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session', '--as-pid-1'])
      expect(args).toContain(flag);
    expect(args).not.toContain('--disable-userns'); // the harness makes a sandbox per test case
    expect(args).not.toContain('--bind'); // nothing of the host is writable
    const sources = args.flatMap((arg, index) => (arg === '--ro-bind' ? [args[index + 1]] : []));
    expect(sources).toEqual([
      '/usr',
      '/jobs/j1/etc/passwd',
      '/jobs/j1/etc/group',
      '/jobs/j1/etc/hosts',
      '/jobs/j1/etc/nsswitch.conf',
      '/opt/node/bin/node',
      '/jobs/j1/harness.mjs',
      '/jobs/j1/checkout/files',
    ]);
    expect(args.join(' ')).toContain(`--size ${64 * 1024 * 1024} --tmpfs /work`);
    expect(args.join(' ')).toContain('--uid 1001 --gid 1001');
    expect(args.slice(args.indexOf('--') + 1)).toEqual([
      '/opt/grader/node',
      '/opt/grader/harness.mjs',
      '--files',
      '/job/files',
      '--work',
      '/work',
      '--job',
      '-',
      '--result',
      '-',
    ]);
  });

  it('generate accounts and names without any of the host', () => {
    const etc = generatedEtc();
    expect(etc.passwd).toContain('student:x:1002:1002::/home/student:/bin/sh');
    expect(etc.passwd).toContain('grader:x:1001:1001::/work:/bin/sh');
    expect(etc.hosts).toBe('127.0.0.1 localhost\n::1 localhost\n');
  });
});

describe('the toolchain', () => {
  it('is /usr and the /bin, /lib* links or folders, and only the toolchain parts of /etc', async () => {
    const root = join(scratch, 'root');
    for (const folder of ['usr/bin', 'lib64', 'etc/alternatives', 'etc/java-17-openjdk', 'etc/ssh'])
      await mkdir(join(root, folder), { recursive: true });
    await symlink('usr/bin', join(root, 'bin'));
    await symlink('/usr/share/zoneinfo/UTC', join(root, 'etc/localtime'));
    for (const file of ['etc/ld.so.cache', 'etc/shadow', 'etc/passwd', 'etc/hosts', 'etc/environment'])
      await writeFile(join(root, file), 'x');
    const mounts = discoverToolchain(root);
    expect(mounts).toEqual([
      { kind: 'ro-bind', path: '/usr' },
      { kind: 'symlink', path: '/bin', target: 'usr/bin' },
      { kind: 'ro-bind', path: '/lib64' },
      { kind: 'ro-bind', path: '/etc/alternatives' },
      { kind: 'ro-bind', path: '/etc/java-17-openjdk' },
      { kind: 'ro-bind', path: '/etc/ld.so.cache' },
      { kind: 'symlink', path: '/etc/localtime', target: '/usr/share/zoneinfo/UTC' },
    ]);
    expect(toolchainArgs(mounts, root)).toContain(join(root, 'usr'));
  });
});

describe('the job', () => {
  it('runs as a uid of its own from the job range when the server is root, else as the server', () => {
    expect(jobUser('41', false)).toBeUndefined();
    expect(jobUser('41', true)).toEqual({ uid: JOB_UID_BASE + 41, gid: JOB_UID_BASE + 41 });
    expect(jobUser('42', true)!.uid).not.toBe(jobUser('41', true)!.uid);
    expect(jobUser(String(JOB_UID_COUNT + 7), true)!.uid).toBe(JOB_UID_BASE + 7);
    const named = jobUser('job-abc', true)!.uid;
    expect(named).toBeGreaterThanOrEqual(JOB_UID_BASE);
    expect(named).toBeLessThan(JOB_UID_BASE + JOB_UID_COUNT);
  });

  it("may take its test cases' time limits plus overheads", () => {
    const testCase = { name: 'a', command: 'true', timeout_seconds: 10, expect: {}, limits };
    expect(jobTimeLimitMs([testCase, testCase])).toBe(30_000 + 2 * (10_000 + 5_000));
  });

  it('reports a missing bubblewrap', async () => {
    expect(await sandboxProblem(undefined, '/nonexistent/bwrap')).toBe('bubblewrap (bwrap) is not installed');
  });

  it('tries a sandbox whose first process was killed again, and names the signal when every attempt is killed', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sandbox-start-'));
    // As root, the sandbox runs as a job's uid, as the worker makes it; the script marks its first attempt here.
    const user = process.getuid?.() === 0 ? jobUser('5') : undefined;
    await chmod(folder, 0o777);
    try {
      // bubblewrap, but the first time (or every time) the process is killed by SIGSEGV as it starts.
      const flakyBwrap = (name: string, always: boolean) =>
        writeFile(
          join(folder, name),
          `#!/bin/sh\nif ${always ? 'true' : `[ ! -e ${folder}/${name}.tried ]`}; then : > ${folder}/${name}.tried; kill -SEGV $$; fi\nexec bwrap "$@"\n`,
          { mode: 0o755 },
        );
      await flakyBwrap('once', false);
      expect(await sandboxProblem(user, join(folder, 'once'))).toBeNull();
      await flakyBwrap('always', true);
      expect(await sandboxProblem(user, join(folder, 'always'))).toBe(
        'bubblewrap could not create a sandbox: its first process was killed by SIGSEGV',
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
