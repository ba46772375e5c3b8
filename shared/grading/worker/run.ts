import { localEngine } from './engines.ts';
import type { RunHooks, RunRequest, RunResult } from '../runner-protocol.ts';

/**
 * Hands a submission to the local sandbox: a separate process with an empty environment checks it
 * out and runs it in bubblewrap; the checkout's commit reaches `hooks.onCheckout` before anything
 * runs. In AWS (GRADING_PROJECT set) the worker hands its jobs to CodeBuild builds instead
 * (gradeInBuilds).
 */
export async function runGrading(request: RunRequest, _job: { readonly lease: string }, hooks: RunHooks = {}): Promise<RunResult> {
  return (await localEngine()).runIsolated(request, hooks);
}
