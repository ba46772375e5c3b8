import { config } from '#shared/config.ts';
import { CheckoutError } from '#shared/grading/checkout/error.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { repositoryUrl, type RepositoryOwner } from '#shared/gradeables/repository.ts';
import { repositoryUnreadable } from './failures.ts';
import { companionModule } from '#shared/companion.ts';

/**
 * The name of the git client's companion file beside a deployed bundle (checkout/head.ts with
 * isomorphic-git), set by esbuild's `define` (infra/aws/service-function.ts bundles it); unset
 * when running from the sources.
 */
export const GIT_HEAD_COMPANION_GLOBAL = 'SUBMISSION_GIT_HEAD_COMPANION';
declare const SUBMISSION_GIT_HEAD_COMPANION: string | undefined;

type GitHead = typeof import('#shared/grading/checkout/head.ts');

/**
 * The head reader, loaded by the first submission rather than with the function: the git client
 * is most of the function's code and would slow every cold start (the module cache keeps it).
 */
const gitHead = (): Promise<GitHead> =>
  typeof SUBMISSION_GIT_HEAD_COMPANION === 'string'
    ? companionModule<GitHead>(SUBMISSION_GIT_HEAD_COMPANION)
    : import('#shared/grading/checkout/head.ts');

/**
 * The commit a new version is bound to: its repository's default branch head as it is at
 * submission, which its grading and every regrade check out, whatever is pushed since. None for a
 * local folder without history (graded as it is then). A repository that cannot be read is
 * refused, saying why, so that the student can fix it at once rather than wait for a failed grade.
 */
export async function resolveCommit(vcs: NonNullable<GradeableDocument['vcs']>, owner: RepositoryOwner): Promise<string | undefined> {
  const repository = repositoryUrl(vcs, owner);
  const { resolveHead } = await gitHead();
  try {
    return await resolveHead(repository, { allowedHosts: config('ALLOWED_GIT_HOSTS') });
  } catch (error) {
    if (error instanceof CheckoutError) throw repositoryUnreadable({ repository, reason: error.message });
    throw error;
  }
}
