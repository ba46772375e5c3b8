import type { TestCase } from '#shared/gradeables/gradeable.ts';

/**
 * What the grading worker asks of the runner, the one place student code runs. The runner holds
 * no credentials: in AWS it is a separate function whose role grants nothing; locally it is a
 * separate process with an empty environment (as an unprivileged user when the server is root).
 */
export interface RunRequest {
  readonly jobId: string;
  readonly repository: {
    /** https://, http:// or (local demo only, when ALLOW_FILE_REPOSITORIES=true) file:// */
    readonly url: string;
    /** Folder inside the repository holding the submission ('' for the root). */
    readonly subdirectory: string;
  };
  readonly testCases: readonly TestCase[];
  readonly limits: RunLimits;
  /** Hosts (host or host:port) that may be fetched even though they resolve to loopback, link-local or private addresses. */
  readonly allowedHosts: readonly string[];
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

/** One check of a test case, in the reference's `autochecks` shape. */
export interface Autocheck {
  readonly description: string;
  readonly messages: readonly { readonly message: string; readonly type: 'success' | 'failure' | 'warning' | 'information' }[];
  readonly diff_viewer: null;
  /** Set where a comparison failed: what was expected and what came out (both capped). */
  readonly expected: string | null;
  readonly actual: string | null;
}

export interface TestCaseOutcome {
  readonly name: string;
  readonly passed: boolean;
  /** One line for the student: passed, wrong output, timed out after N s, exited with code N, … */
  readonly message: string;
  readonly timedOut: boolean;
  readonly exitCode: number | null;
  readonly autochecks: readonly Autocheck[];
}

export type RunResult =
  | { readonly status: 'graded'; readonly testCases: readonly TestCaseOutcome[] }
  /** The submission could not be checked out (not a repository, refused address, too large, …). */
  | { readonly status: 'checkout-failed'; readonly message: string };
