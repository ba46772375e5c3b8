import type { HarnessTestCase, TestCaseOutcome } from './harness/protocol.ts';
import type { RecordBuild } from './grading-record.ts';

export type { Autocheck, CaseLimits, HarnessTestCase, TestCaseOutcome } from './harness/protocol.ts';

/**
 * How student code is isolated: `bwrap`, the bubblewrap sandbox (the default; without a working
 * one nothing is graded), or `unsafe-none`, the operator's explicit development switch
 * (GRADING_SANDBOX=unsafe-none) under which commands run as plain processes.
 */
export type SandboxMode = 'bwrap' | 'unsafe-none';

/**
 * What the grading worker asks of the runner. The runner holds no credentials: in AWS it is a
 * separate function whose role grants nothing; locally it is a separate process with an empty
 * environment. It checks the submission out (with network access, running nothing of it) and
 * hands the files to the harness in the sandbox.
 */
export interface RunRequest {
  readonly jobId: string;
  readonly repository: {
    /** https://, http:// or (local demo only, inside FILE_REPOSITORIES_DIR) file:// */
    readonly url: string;
    /** Folder inside the repository holding the submission ('' for the root). */
    readonly subdirectory: string;
  };
  /**
   * The commit to check out: the one the version was first graded on (a regrade, a retry). Absent
   * for a version not checked out yet: the default branch's head then, whose commit the runner
   * reports (RunHooks.onCheckout, and `commit` of the result).
   */
  readonly commit?: string;
  /**
   * A files version instead of a repository: its files' names and presigned GETs, read in this
   * order (zips unpacked in their place); `repository` and `commit` are then unused.
   */
  readonly files?: readonly { readonly name: string; readonly url: string }[];
  /** The test cases with the limits in force (see worker/limits.ts). */
  readonly testCases: readonly HarnessTestCase[];
  readonly limits: RunLimits;
  /** Hosts (host or host:port) that may be fetched even though they resolve to loopback, link-local or private addresses. */
  readonly allowedHosts: readonly string[];
  readonly sandbox: SandboxMode;
  /** The approved build image the gradeable names (`autograding.image`); in AWS only, `default` when absent. */
  readonly image?: string;
}

/** What the runner reports while it runs. */
export interface RunHooks {
  /**
   * Called once the checkout resolved its commit, before anything runs, so the worker records it
   * for the version (a retry then grades the same files); a rejection stops the run.
   */
  readonly onCheckout?: (commit: string) => Promise<void>;
}

/** The runner process's line announcing its checkout's commit, before the result's line (runner/cli.ts). */
export interface CheckedOutLine {
  readonly checkedOut: string;
}

export interface RunLimits {
  readonly maxRepositoryBytes: number;
  readonly maxRepositoryFiles: number;
  /** Output kept per stream and test case; the rest is cut (the process is killed past 10× this). */
  readonly maxOutputBytes: number;
}

export const defaultRunLimits: RunLimits = {
  maxRepositoryBytes: 50 * 1024 * 1024,
  maxRepositoryFiles: 5_000,
  maxOutputBytes: 64 * 1024,
};

export type RunResult =
  /**
   * `commit`: the commit graded (none for a local folder without history); `build`: the CodeBuild
   * build that ran it, as CodeBuild reported it (AWS only).
   */
  | { readonly status: 'graded'; readonly testCases: readonly TestCaseOutcome[]; readonly commit?: string; readonly build?: RecordBuild }
  /** The submission could not be checked out (not a repository, refused address, too large, …). */
  | { readonly status: 'checkout-failed'; readonly message: string }
  /** The commit of `RunRequest.commit` is no longer reachable in the repository: nothing was run. */
  | { readonly status: 'commit-unreachable'; readonly message: string }
  /** No working sandbox on this machine: nothing was recorded (no commit reported) or run. */
  | { readonly status: 'sandbox-unavailable'; readonly message: string }
  /** The sandbox (in AWS, the grading build) never started, never finished or gave no result. */
  | { readonly status: 'sandbox-failed'; readonly message: string };
