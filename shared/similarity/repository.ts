/**
 * A version submitted from a repository, as a similarity run reads it: the files of the commit its
 * grading checked out (recorded on the version), fetched with the grading's own checkout.
 */
import { companionModule } from '#shared/companion.ts';
import { config } from '#shared/config.ts';
import { CheckoutError } from '#shared/grading/checkout/error.ts';
import { logger } from '#shared/logger.ts';
import { MAX_COMPARED_FILE_BYTES, textOf } from './limits.ts';

/**
 * The name of the commit reader's companion file beside a deployed bundle (checkout/commit-files.ts
 * with the git client, and the checkout process beside it), set by esbuild's `define`
 * (infra/aws/service-function.ts bundles it); unset when running from the sources.
 */
export const COMMIT_FILES_COMPANION_GLOBAL = 'SIMILARITY_COMMIT_FILES_COMPANION';
declare const SIMILARITY_COMMIT_FILES_COMPANION: string | undefined;

type CommitFilesModule = typeof import('#shared/grading/checkout/commit-files.ts');

/** The commit reader, loaded by the first repository version a run compares: most runs compare uploads only. */
const commitFilesModule = (): Promise<CommitFilesModule> =>
  typeof SIMILARITY_COMMIT_FILES_COMPANION === 'string'
    ? companionModule<CommitFilesModule>(SIMILARITY_COMMIT_FILES_COMPANION)
    : import('#shared/grading/checkout/commit-files.ts');

/** One compared file of a repository version: its path in the submission's folder and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/**
 * The text files of `commit` (each at most MAX_COMPARED_FILE_BYTES, as for uploaded files) in the
 * repository's `subdirectory`, in their paths' order; or, when the repository or the commit cannot
 * be read, why: the repository's own problem, or a fault of this machine (logged), which skips
 * this version rather than the whole run.
 */
export async function repositorySources(source: {
  readonly url: string;
  readonly subdirectory: string;
  readonly commit: string;
}): Promise<{ files: SourceFile[] } | { reason: string }> {
  const { commitFiles } = await commitFilesModule();
  try {
    const files = await commitFiles({ ...source, allowedHosts: config('ALLOWED_GIT_HOSTS') }, MAX_COMPARED_FILE_BYTES);
    return {
      files: files.flatMap(({ path, bytes }) => {
        const text = textOf(bytes);
        return text === undefined ? [] : [{ path, text }];
      }),
    };
  } catch (error) {
    if (error instanceof CheckoutError) return { reason: `Its repository could not be read: ${error.message}.` };
    logger.error({ message: 'A repository version could not be checked out for a similarity run', error: error as Error });
    return { reason: 'Its repository could not be read: an error of this server (logged).' };
  }
}
