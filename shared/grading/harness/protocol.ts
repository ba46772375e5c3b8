import type { DiffViewer } from './line-diff.ts';
import type { Expectation } from '#shared/gradeables/gradeable.ts';

/**
 * What the grading harness reads and writes. The harness is the program that runs inside the
 * sandbox: it gets a folder of files (the checked-out submission) and a job description, runs
 * each test case's command as an unprivileged user with the case's limits, and writes the
 * outcomes as JSON. It imports nothing but Node's own modules and its neighbours, so esbuild
 * bundles it into one .mjs file that any Node 20+ runs: locally inside bubblewrap, in AWS inside
 * the build or task that receives the files.
 */

/** The limits in force for one test case (already within the operator's bounds). */
export interface CaseLimits {
  /** Processes and threads the test case may have at once. */
  readonly processes: number;
  /** Memory of all its processes together (anonymous resident memory), and of each one. */
  readonly memoryMib: number;
  /** CPU time of each process. */
  readonly cpuSeconds: number;
  /** Largest file a process may write. */
  readonly fileSizeMib: number;
  /** Its folder (the copy of the submission included), /tmp and /dev/shm together. */
  readonly diskMib: number;
}

export interface HarnessTestCase {
  readonly name: string;
  readonly command: string;
  /** Wall time. */
  readonly timeout_seconds: number;
  readonly expect: Expectation;
  readonly limits: CaseLimits;
}

/**
 * How test commands are kept apart from the harness:
 * - `namespaces`: each test case in a nested bubblewrap sandbox of its own (user, PID, network,
 *   mount, IPC and UTS namespaces), as another uid, with no view of the harness's processes;
 * - `container`: the same sandbox made with util-linux (`unshare`, `mount`, `pivot_root`,
 *   `setpriv`) by a harness running as root in a fresh privileged container that has no
 *   bubblewrap (a CodeBuild build): PID, network, mount, IPC and UTS namespaces, a read-only root
 *   of the toolchain only, the student's uid with no capabilities in a user namespace that can
 *   make no further one;
 * - `none`: a plain process group (the operator's unsafe development switch; nothing is isolated).
 */
export type Isolation = 'namespaces' | 'container' | 'none';

export interface HarnessJob {
  readonly testCases: readonly HarnessTestCase[];
  /** Output kept per stream and test case; past 10× this on one stream the command is killed. */
  readonly maxOutputBytes: number;
  readonly isolation: Isolation;
  /**
   * The job's own key (base64url): when given, the harness signs its result with it
   * (result-signature.ts) and the worker accepts only a result that verifies. It never leaves the
   * job: not in a build's definition, not in an object's metadata.
   */
  readonly resultKey?: string;
}

/** One check of a test case, in the reference's `autochecks` shape. */
export interface Autocheck {
  readonly description: string;
  readonly messages: readonly { readonly message: string; readonly type: 'success' | 'failure' | 'warning' | 'information' }[];
  /** Where a comparison of outputs failed: the lines in which `actual` differs from `expected`. */
  readonly diff_viewer: DiffViewer | null;
  /** Set where a comparison failed: what was expected and what came out (both capped). */
  readonly expected: string | null;
  readonly actual: string | null;
}

export interface TestCaseOutcome {
  readonly name: string;
  readonly passed: boolean;
  /** One line for the student: passed, wrong output, timed out after N s, killed at a limit, … */
  readonly message: string;
  readonly timedOut: boolean;
  readonly exitCode: number | null;
  readonly autochecks: readonly Autocheck[];
}

export interface HarnessResult {
  readonly testCases: readonly TestCaseOutcome[];
}
