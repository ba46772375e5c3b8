import type { CaseLimits } from './protocol.ts';
import { toolchainArgs, type ToolchainMount } from './toolchain.ts';

/** Whom test commands run as inside their sandbox. */
export const STUDENT = { uid: 1002, gid: 1002, name: 'student', home: '/home/student' } as const;

/** The only environment a test command gets. */
export const COMMAND_PATH = '/usr/local/bin:/usr/bin:/bin';
export const commandEnvironment = (home: string): Record<string, string> => ({ PATH: COMMAND_PATH, HOME: home, LANG: 'C.UTF-8' });

const MIB = 1024 * 1024;

/** prlimit options for one test case: per-process memory, CPU time (SIGKILL a second after SIGXCPU), file size, processes; no core files. */
export function rlimitArgs(limits: CaseLimits): string[] {
  return [
    `--nproc=${limits.processes}`,
    `--data=${limits.memoryMib * MIB}`,
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--fsize=${limits.fileSizeMib * MIB}`,
    '--core=0',
  ];
}

export interface StudentSandbox {
  readonly toolchain: readonly ToolchainMount[];
  /** Folders on the harness's size-capped tmpfs that become the home folder, /tmp and /dev/shm. */
  readonly home: string;
  readonly tmp: string;
  readonly shm: string;
  readonly prlimit: string;
  readonly limits: CaseLimits;
  readonly command: string;
}

/**
 * bubblewrap arguments for one test case: new user (uid 1002, no further user namespaces), PID,
 * network (no interface but an isolated loopback), mount, IPC and UTS namespaces; the toolchain
 * read-only; writable only the test case's home folder, /tmp and /dev/shm (all on the harness's
 * size-capped tmpfs); its own /proc; a new session; dies with the harness. The command runs
 * under `sh -c` with the case's rlimits, as the PID namespace's init: when it ends, the kernel
 * kills every other process of the namespace before bubblewrap learns of its end.
 */
export function studentSandboxArgs(sandbox: StudentSandbox): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    // The command is the namespace's init: bubblewrap's own would let bubblewrap exit (and the
    // harness go on) while the namespace's other processes are still being killed.
    '--as-pid-1',
    '--uid', String(STUDENT.uid),
    '--gid', String(STUDENT.gid),
    '--hostname', 'sandbox',
    ...toolchainArgs(sandbox.toolchain),
    '--proc', '/proc',
    '--dev', '/dev',
    '--bind', sandbox.home, STUDENT.home,
    '--bind', sandbox.tmp, '/tmp',
    '--bind', sandbox.shm, '/dev/shm',
    '--chdir', STUDENT.home,
    // The sandbox's own root and /dev are tmpfs without a size: nothing may be written there.
    '--remount-ro', '/dev',
    '--remount-ro', '/',
    '--',
    sandbox.prlimit,
    ...rlimitArgs(sandbox.limits),
    '--',
    '/bin/sh', '-c', sandbox.command,
  ];
}
