import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunHooks, RunRequest, RunResult } from '../runner-protocol.ts';
import { checkoutOrFailure } from '../checkout/checkout.ts';
import { removeFolder } from '../checkout/files.ts';
import { jobUser, runHarness, sandboxProblem, sandboxUnavailableMessage } from './launcher.ts';

export interface RunOptions extends RunHooks {
  /** Aborting stops the harness (and with it every process of the job) and ends the run with an error. */
  readonly signal?: AbortSignal;
}

/**
 * Grades the submission of `request`: checks the repository out here, outside the sandbox
 * (network, no student code) at `request.commit` or the default branch's head, meanwhile making
 * sure a sandbox can be made (else nothing is reported or run), reports the commit
 * (`onCheckout`), and hands the files to the harness in the sandbox, which runs the test cases.
 * Problems the student caused (unreachable or refused repository, missing subdirectory, too
 * large, …) give `checkout-failed`, a commit gone from the repository `commit-unreachable`; only
 * faults of this machine throw.
 */
export async function runSubmission(request: RunRequest, options: RunOptions = {}): Promise<RunResult> {
  const user = jobUser(request.jobId);
  const jobFolder = await mkdtemp(join(tmpdir(), 'grading-job-'));
  try {
    // The sandbox check (a few bubblewraps) runs while the repository is fetched; without a
    // sandbox the checkout is thrown away unreported and nothing runs.
    const [problem, checkout] = await Promise.all([
      request.sandbox === 'bwrap' ? sandboxProblem(user) : null,
      checkoutOrFailure(request, options.signal, jobFolder),
    ]);
    if (problem) return { status: 'sandbox-unavailable', message: sandboxUnavailableMessage(problem) };
    if ('status' in checkout) return checkout;
    if (checkout.commit) await options.onCheckout?.(checkout.commit);
    const result = await runHarness({
      mode: request.sandbox,
      files: checkout.submission,
      job: { testCases: request.testCases, maxOutputBytes: request.limits.maxOutputBytes, isolation: 'namespaces' },
      jobFolder,
      user,
      signal: options.signal,
    });
    return { status: 'graded', testCases: result.testCases, ...(checkout.commit ? { commit: checkout.commit } : {}) };
  } finally {
    await removeJobFolder(jobFolder, request.sandbox === 'unsafe-none' ? user : undefined);
  }
}

/**
 * Removes the job's folder. In a sandbox no student process could ever write to it; without one
 * (unsafe-none) its `work` folder was theirs, so that part is removed as the job's own user,
 * never walked by root.
 */
async function removeJobFolder(jobFolder: string, studentWritableAs: { uid: number; gid: number } | undefined): Promise<void> {
  if (studentWritableAs) {
    const { spawn } = await import('node:child_process');
    await new Promise<void>((resolve) => {
      const child = spawn('rm', ['-rf', '--', join(jobFolder, 'work')], {
        uid: studentWritableAs.uid,
        gid: studentWritableAs.gid,
        stdio: 'ignore',
      });
      child.on('error', () => resolve());
      child.on('close', () => resolve());
    });
  }
  await removeFolder(jobFolder);
}
