/**
 * The grading engines, each loaded when first used, so that importing the grading worker stays as
 * cheap as importing any function: the CodeBuild engine (checkout, S3 and CodeBuild clients) and
 * the local one (a process in bubblewrap).
 */

import { companionModule } from '#shared/companion.ts';

/**
 * The name of the CodeBuild engine's companion file beside a deployed bundle, set by esbuild's
 * `define` (infra/aws/service-function.ts bundles codebuild.ts into it); unset when running from
 * the sources.
 */
export const CODEBUILD_ENGINE_GLOBAL = 'GRADING_CODEBUILD_ENGINE';
declare const GRADING_CODEBUILD_ENGINE: string | undefined;

export type CodeBuildEngine = typeof import('../builds/codebuild.ts');

/** The CodeBuild engine. */
export const codeBuildEngine = (): Promise<CodeBuildEngine> =>
  typeof GRADING_CODEBUILD_ENGINE === 'string'
    ? companionModule<CodeBuildEngine>(GRADING_CODEBUILD_ENGINE)
    : import('../builds/codebuild.ts');

/** The local engine; a deployed bundle grades in CodeBuild only and carries none. */
export const localEngine = (): Promise<typeof import('../runner/in-process.ts')> =>
  typeof GRADING_CODEBUILD_ENGINE === 'string'
    ? Promise.reject(new Error('GRADING_PROJECT is not set: a deployed grading worker grades in CodeBuild only'))
    : import('../runner/in-process.ts');
