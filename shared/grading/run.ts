import type { RunHooks, RunRequest, RunResult } from './runner-protocol.ts';

/** Time the worker keeps, after the sandbox's deadline and before its lease runs out, to record the outcome. */
const RECORD_MARGIN_MS = 90_000;

/**
 * The name of the CodeBuild engine's companion file beside a deployed bundle, set by esbuild's
 * `define` (infra/aws/service-function.ts bundles codebuild.ts into it with the checkout and the
 * S3 and CodeBuild clients); unset when running from the sources.
 */
export const CODEBUILD_ENGINE_GLOBAL = 'GRADING_CODEBUILD_ENGINE';
declare const GRADING_CODEBUILD_ENGINE: string | undefined;

/** The CodeBuild engine, loaded by the first job: importing the worker stays as cheap as any function. */
const codeBuildEngine = (): Promise<typeof import('./codebuild.ts')> =>
  typeof GRADING_CODEBUILD_ENGINE === 'string'
    ? (import(new URL(`./${GRADING_CODEBUILD_ENGINE}`, import.meta.url).href) as Promise<typeof import('./codebuild.ts')>)
    : import('./codebuild.ts');

/** The local engine (a process in bubblewrap); a deployed bundle grades in CodeBuild only and carries none. */
const localEngine = (): Promise<typeof import('./run-in-process.ts')> =>
  typeof GRADING_CODEBUILD_ENGINE === 'string'
    ? Promise.reject(new Error('GRADING_PROJECT is not set: a deployed grading worker grades in CodeBuild only'))
    : import('./run-in-process.ts');

/**
 * Hands a submission to the sandbox. In AWS (GRADING_PROJECT set) the worker checks it out and a
 * fresh CodeBuild build runs it; locally a separate process with an empty environment checks it
 * out and runs it in bubblewrap. Either way the checkout's commit reaches `hooks.onCheckout`
 * before anything runs. Each engine is loaded when first used.
 */
export async function runGrading(request: RunRequest, job: { readonly lease: string }, hooks: RunHooks = {}): Promise<RunResult> {
  const { codeBuildSandbox, runInCodeBuild } = await codeBuildEngine();
  const sandbox = codeBuildSandbox();
  if (!sandbox) return (await localEngine()).runIsolated(request, hooks);
  return runInCodeBuild(sandbox, request, { ...hooks, image: request.image, deadline: Date.parse(job.lease) - RECORD_MARGIN_MS });
}
