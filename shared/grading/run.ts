import { codeBuildSandbox, runInCodeBuild } from './codebuild.ts';
import type { RunRequest, RunResult } from './runner-protocol.ts';

/** Time the worker keeps, after the sandbox's deadline and before its lease runs out, to record the outcome. */
const RECORD_MARGIN_MS = 90_000;

/**
 * Hands a submission to the sandbox. In AWS (GRADING_PROJECT set) the worker checks it out and a
 * fresh CodeBuild build runs it; locally a separate process with an empty environment checks it
 * out and runs it in bubblewrap.
 */
export async function runGrading(request: RunRequest, job: { readonly lease: string }): Promise<RunResult> {
  const sandbox = codeBuildSandbox();
  if (!sandbox) return (await import('./run-in-process.ts')).runIsolated(request);
  return runInCodeBuild(sandbox, request, { image: request.image, deadline: Date.parse(job.lease) - RECORD_MARGIN_MS });
}
