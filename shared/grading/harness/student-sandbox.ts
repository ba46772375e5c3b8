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
    '--uid',
    String(STUDENT.uid),
    '--gid',
    String(STUDENT.gid),
    '--hostname',
    'sandbox',
    ...toolchainArgs(sandbox.toolchain),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--bind',
    sandbox.home,
    STUDENT.home,
    '--bind',
    sandbox.tmp,
    '/tmp',
    '--bind',
    sandbox.shm,
    '/dev/shm',
    '--chdir',
    STUDENT.home,
    // The sandbox's own root and /dev are tmpfs without a size: nothing may be written there.
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
    '--',
    sandbox.prlimit,
    ...rlimitArgs(sandbox.limits),
    '--',
    '/bin/sh',
    '-c',
    sandbox.command,
  ];
}

/** Folders a `container` sandbox covers with the test case's own /tmp, so nothing else is writable. */
const SHARED_WRITABLE = ['/tmp', '/var/tmp', '/run/lock'];

/**
 * Run as root inside the new namespaces, before the command (the harness's folder must not be
 * under /home): the test case's folders over the home folder, /tmp (and the other world-writable folders) and /dev/shm, the harness's folder
 * hidden, then the student's uid with no capabilities and no way to gain any, the rlimits, and the
 * command as the PID namespace's init.
 */
const CONTAINER_SETUP = [
  'set -eu',
  'home=$1; tmp=$2; shm=$3; hide=$4; shift 4',
  // A fresh /home holding only the student's home: no other user's, and nothing made on the host.
  'mount -t tmpfs -o size=4k,mode=0755 homes /home',
  `mkdir ${STUDENT.home}`,
  `mount --bind "$home" ${STUDENT.home}`,
  // Every source is mounted before /tmp is covered: locally they may live under /tmp.
  'mount --bind "$shm" /dev/shm',
  `for folder in ${SHARED_WRITABLE.join(' ')}; do if [ -d "$folder" ]; then mount --bind "$tmp" "$folder"; fi; done`,
  'if [ -d "$hide" ]; then mount -t tmpfs -o size=4k,mode=0755 harness "$hide"; fi',
  'hostname sandbox',
  `cd ${STUDENT.home}`,
  `exec setpriv --reuid=${STUDENT.uid} --regid=${STUDENT.gid} --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- "$@"`,
].join('\n');

export interface ContainerSandbox extends Omit<StudentSandbox, 'toolchain'> {
  /** The harness's own folder (its job description, its work folder): hidden from the command. */
  readonly hide: string;
}

/**
 * `unshare` arguments for one test case in `container` isolation (the harness is root in a
 * throwaway container): new PID (with its own /proc), network (no interface at all), mount, IPC
 * and UTS namespaces; the command killed with the namespace's init, and the namespace with the
 * harness.
 */
export function containerSandboxArgs(sandbox: ContainerSandbox): string[] {
  return [
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--net',
    '--ipc',
    '--uts',
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    CONTAINER_SETUP,
    'sandbox-setup',
    sandbox.home,
    sandbox.tmp,
    sandbox.shm,
    sandbox.hide,
    sandbox.prlimit,
    ...rlimitArgs(sandbox.limits),
    '--',
    '/bin/sh',
    '-c',
    sandbox.command,
  ];
}
