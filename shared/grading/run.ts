import { codeBuildSandbox, runInCodeBuild } from './codebuild.ts';
import type { RunHooks, RunRequest, RunResult } from './runner-protocol.ts';

/** Time the worker keeps, after the sandbox's deadline and before its lease runs out, to record the outcome. */
const RECORD_MARGIN_MS = 90_000;

/**
 * Hands a submission to the sandbox. In AWS (GRADING_PROJECT set) the worker checks it out and a
 * fresh CodeBuild build runs it; locally a separate process with an empty environment checks it
 * out and runs it in bubblewrap. Either way the checkout's commit reaches `hooks.onCheckout`
 * before anything runs.
 */
export async function runGrading(request: RunRequest, job: { readonly lease: string }, hooks: RunHooks = {}): Promise<RunResult> {
  const sandbox = codeBuildSandbox();
  if (!sandbox) return (await import('./run-in-process.ts')).runIsolated(request, hooks);
  return runInCodeBuild(sandbox, request, { ...hooks, image: request.image, deadline: Date.parse(job.lease) - RECORD_MARGIN_MS });
}
