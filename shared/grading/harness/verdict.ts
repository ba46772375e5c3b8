import { constants } from 'node:os';
import { formatBytes } from '../checkout/files.ts';
import type { CaseLimits } from './protocol.ts';

/** A limit the harness stopped a test case at, having watched it cross the limit. */
export type WatchedLimit = 'processes' | 'memory' | 'disk';

/** What the harness knows about how a test case's command ended. */
export interface CaseEnd {
  readonly exitCode: number | null;
  /** Only when the command's own process was killed by a signal and that is known for sure. */
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly outputExceeded: boolean;
  readonly startError: string | null;
  /** The harness killed the test case for crossing this limit. */
  readonly killedAt: WatchedLimit | null;
  /** Some process of the test case used its whole CPU time allowance. */
  readonly cpuLimitReached: boolean;
  /** The standard error output kept. */
  readonly stderr: string;
}

// A shell reports a child killed by signal N as exit code 128 + N; so does bubblewrap.
const SIGXCPU_EXIT = 128 + 24;
const SIGXFSZ_EXIT = 128 + 25;

// What shells print when a child was killed at a limit or a fork failed: a limit was hit, even
// if the command went on and ended well.
const CPU_SIGNAL = /cpu time limit exceeded/i;
const FILE_SIZE_SIGNAL = /file size limit exceeded/i;
const FORK_FAILED =
  /can't fork|cannot fork|fork: (retry: )?resource temporarily unavailable|fork failed|unable to create (native )?thread|can't create (a )?thread/i;
// What programs print when a call failed at a limit; taken as the reason only when the command failed.
const FILE_TOO_LARGE = /file too large/i;
const DISK_FULL = /no space left on device|disk quota exceeded/i;
const ALLOCATION_FAILED =
  /cannot allocate memory|out of memory|memoryerror|bad_alloc|outofmemoryerror|allocation failed|failed to allocate|memory exhausted/i;

const mib = (value: number) => `${value} MiB`;

/**
 * Why a test case stopped short, as the one line the student sees, or null when its command ran
 * to its own end within every limit. Limits the harness watched (and killed at) come first, then
 * the wall time, the output cap, and the limits the kernel enforced: seen in the exit status, in
 * a shell's report of a child killed at a limit or a failed fork, or in the error output of a
 * failed command whose write or allocation failed.
 */
export function stopReason(end: CaseEnd, limits: CaseLimits, timeoutSeconds: number, maxOutputBytes: number): string | null {
  if (end.startError !== null) return 'The command could not be started';
  if (end.killedAt === 'processes') return `Killed: process limit of ${limits.processes} exceeded`;
  if (end.killedAt === 'memory') return `Killed: memory limit of ${mib(limits.memoryMib)} exceeded`;
  if (end.killedAt === 'disk') return `Killed: disk limit of ${mib(limits.diskMib)} exceeded`;
  if (end.timedOut) return `Timed out after ${timeoutSeconds} s`;
  if (end.outputExceeded) return `Stopped after writing more than ${formatBytes(maxOutputBytes * 10)} of output`;
  const failed = end.exitCode !== 0;
  if (end.signal === 'SIGXCPU' || end.exitCode === SIGXCPU_EXIT || (end.cpuLimitReached && failed) || CPU_SIGNAL.test(end.stderr)) {
    return `Killed: CPU time limit of ${limits.cpuSeconds} s exceeded`;
  }
  if (end.signal === 'SIGXFSZ' || end.exitCode === SIGXFSZ_EXIT || FILE_SIZE_SIGNAL.test(end.stderr)) {
    return `Killed: file size limit of ${mib(limits.fileSizeMib)} exceeded`;
  }
  if (FORK_FAILED.test(end.stderr)) return `Process limit of ${limits.processes} exceeded: a process could not be started`;
  if (!failed) return null;
  if (FILE_TOO_LARGE.test(end.stderr)) return `File size limit of ${mib(limits.fileSizeMib)} exceeded: a write failed`;
  if (DISK_FULL.test(end.stderr)) return `Disk limit of ${mib(limits.diskMib)} exceeded: no space was left`;
  if (ALLOCATION_FAILED.test(end.stderr)) return `Memory limit of ${mib(limits.memoryMib)} exceeded: an allocation failed`;
  return null;
}

// util-linux's unshare --fork, whose first process was killed by a signal it could not raise again
// on itself, says so and exits 1: the signal's number is lost.
const UNRAISED_SIGNAL = /sigprocmask unblock failed|signal handler reset failed/;

/** A signal's name by its number (`SIGKILL` for 9), or `signal N` for one Node has no name for. */
function signalName(number: number): string {
  const name = Object.entries(constants.signals).find(([, value]) => value === number)?.[0];
  return name ?? `signal ${number}`;
}

/**
 * Why a sandbox did not come up, in words: the error that kept it from starting, or the signal that
 * killed its first process (reported, or bubblewrap's exit code 128 + N), else its exit code; with
 * the last lines of its error output.
 */
export function sandboxStartFailure(end: Pick<CaseEnd, 'exitCode' | 'signal' | 'timedOut' | 'startError' | 'stderr'>): string {
  if (end.startError !== null) return end.startError;
  const said = end.stderr.trim().split('\n').slice(-3).join(' ');
  const signal = end.signal ?? (end.exitCode !== null && end.exitCode > 128 ? signalName(end.exitCode - 128) : null);
  const how = end.timedOut
    ? 'it did not finish in time'
    : signal !== null
      ? `its first process was killed by ${signal}`
      : UNRAISED_SIGNAL.test(said)
        ? 'its first process was killed by a signal that unshare could not pass on'
        : `exit code ${end.exitCode}`;
  return said ? `${how} (${said})` : how;
}
