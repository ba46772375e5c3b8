import { codeBuildSandbox, runInCodeBuild } from './codebuild.ts';
import type { RunRequest, RunResult } from './runner-protocol.ts';

/** Time the worker keeps, after the sandbox's deadline, to record the outcome. */
const RECORD_MARGIN_SECONDS = 90;
const DEFAULT_LEASE_SECONDS = 15 * 60;

/**
 * Hands a submission to the sandbox. In AWS (GRADING_PROJECT set) the worker checks it out and a
 * fresh CodeBuild build runs it; locally a separate process with an empty environment checks it
 * out and runs it in bubblewrap.
 */
export async function runGrading(request: RunRequest): Promise<RunResult> {
  const sandbox = codeBuildSandbox();
  if (!sandbox) return (await import('./run-in-process.ts')).runIsolated(request);
  const lease = Number(process.env.GRADING_LEASE_SECONDS) || DEFAULT_LEASE_SECONDS;
  return runInCodeBuild(sandbox, request, { image: request.image, deadline: Date.now() + (lease - RECORD_MARGIN_SECONDS) * 1000 });
}
