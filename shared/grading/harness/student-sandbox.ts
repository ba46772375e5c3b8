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

/** The account and name files of a `container` sandbox: the student, root and nobody; no host names. */
const CONTAINER_ETC: Readonly<Record<string, string>> = {
  passwd: `root:x:0:0::/:/bin/sh\n${STUDENT.name}:x:${STUDENT.uid}:${STUDENT.gid}::${STUDENT.home}:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n`,
  group: `root:x:0:\n${STUDENT.name}:x:${STUDENT.gid}:\nnogroup:x:65534:\n`,
  hosts: '127.0.0.1 localhost\n::1 localhost\n',
  'nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files\n',
};

/**
 * Run as root inside the new namespaces, before the command: what bubblewrap does for a
 * `namespaces` sandbox, with util-linux. A new root (a tmpfs) holding only the toolchain
 * (read-only, no set-uid), generated /etc files, the test case's own /proc, a minimal /dev, and
 * the test case's folders as the home folder, /tmp and /dev/shm; the root made read-only and
 * pivoted to, so nothing of the build (the harness, the job, its result, other test cases)
 * is left in view; the loopback up. Then the student's uid with no capabilities, no new
 * privileges and an empty bounding set, in a user namespace (made by that uid, so nothing of
 * the build's root is mapped) whose root allows one more user namespace, which it makes at
 * once for the command: none is left for the command to make, as with bubblewrap's
 * `--disable-userns`. The command is the PID namespace's init.
 */
const CONTAINER_SETUP = String.raw`set -eu
home=$1 tmp=$2 shm=$3 root=$4; shift 4
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t tmpfs -o size=1m,mode=0755,nosuid,nodev sandbox "$root"
while [ "$1" != -- ]; do
  case $1 in
    ro)
      if [ -d "$2" ]; then mkdir -p "$root$2"; else mkdir -p "$root$(dirname "$2")"; : > "$root$2"; fi
      mount --bind "$2" "$root$2"
      mount -o remount,bind,ro,nosuid,nodev "$root$2"
      shift 2 ;;
    link) mkdir -p "$root$(dirname "$2")"; ln -s "$3" "$root$2"; shift 3 ;;
    etc) mkdir -p "$root/etc"; printf '%s' "$3" > "$root/etc/$2"; shift 3 ;;
    *) echo "sandbox-setup: unknown mount $1" >&2; exit 1 ;;
  esac
done
shift
mkdir -p "$root/proc" "$root/dev" "$root${STUDENT.home}" "$root/tmp"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t tmpfs -o size=64k,mode=0755,nosuid,noexec dev "$root/dev"
for device in null zero full random urandom tty; do : > "$root/dev/$device"; mount --bind "/dev/$device" "$root/dev/$device"; done
ln -s /proc/self/fd "$root/dev/fd"; ln -s /proc/self/fd/0 "$root/dev/stdin"; ln -s /proc/self/fd/1 "$root/dev/stdout"; ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir "$root/dev/shm"
mount --bind "$shm" "$root/dev/shm"
mount --bind "$home" "$root${STUDENT.home}"
mount --bind "$tmp" "$root/tmp"
mount -o remount,ro,nosuid,noexec "$root/dev"
mount -o remount,ro,nosuid,nodev "$root"
if command -v ip >/dev/null 2>&1; then ip link set lo up; else perl -e 'socket(my $s, 2, 2, 0) or die "socket: $!"; my $r = pack("a16 s x22", "lo", 0); ioctl($s, 0x8913, $r) or die "lo: $!"; my $f = unpack("x16 s", $r) | 1; ioctl($s, 0x8914, pack("a16 s x22", "lo", $f)) or die "lo up: $!"'; fi
hostname sandbox
cd "$root"
pivot_root . .
umount -l .
cd ${STUDENT.home}
PATH=${COMMAND_PATH}
exec setpriv --reuid=${STUDENT.uid} --regid=${STUDENT.gid} --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- \
  unshare --user --map-root-user -- /bin/sh -c 'echo 1 > /proc/sys/user/max_user_namespaces && exec unshare --user --map-user=${STUDENT.uid} --map-group=${STUDENT.gid} -- "$@"' disable-userns "$@"
`;

export interface ContainerSandbox extends StudentSandbox {
  /** An empty folder of the test case's, where its new root is mounted. */
  readonly root: string;
}

/** The setup script's list of what the new root holds: the toolchain and the generated /etc files. */
function containerMounts(toolchain: readonly ToolchainMount[]): string[] {
  const etc = new Set(Object.keys(CONTAINER_ETC).map((name) => `/etc/${name}`));
  return [
    ...toolchain
      .filter((mount) => !etc.has(mount.path))
      .flatMap((mount) => (mount.kind === 'symlink' ? ['link', mount.path, mount.target] : ['ro', mount.path])),
    ...Object.entries(CONTAINER_ETC).flatMap(([name, content]) => ['etc', name, content]),
  ];
}

/**
 * `unshare` arguments for one test case in `container` isolation (the harness is root in a
 * throwaway privileged container without bubblewrap): new PID, network (only its own loopback),
 * mount, IPC and UTS namespaces, and the protections of a `namespaces` sandbox (see
 * CONTAINER_SETUP); the command killed with the namespace's init, and the namespace with the
 * harness.
 */
export function containerSandboxArgs(sandbox: ContainerSandbox): string[] {
  return [
    '--pid',
    '--fork',
    '--kill-child',
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
    sandbox.root,
    ...containerMounts(sandbox.toolchain),
    '--',
    sandbox.prlimit,
    ...rlimitArgs(sandbox.limits),
    '--',
    '/bin/sh',
    '-c',
    sandbox.command,
  ];
}
