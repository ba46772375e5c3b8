import { config } from '#shared/config.ts';
import { CheckoutError } from '#shared/grading/checkout-error.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { repositoryUrl, type RepositoryOwner } from '#shared/gradeables/repository.ts';
import { repositoryUnreadable } from './failures.ts';

/**
 * The commit a new version is bound to: its repository's default branch head as it is at
 * submission, which its grading and every regrade check out, whatever is pushed since. None for a
 * local folder without history (graded as it is then). A repository that cannot be read is
 * refused, saying why, so that the student can fix it at once rather than wait for a failed grade.
 */
export async function resolveCommit(vcs: NonNullable<GradeableDocument['vcs']>, owner: RepositoryOwner): Promise<string | undefined> {
  const repository = repositoryUrl(vcs, owner);
  // Loaded on the first submission, not with the function: the git client would slow every cold start.
  const { resolveHead } = await import('#shared/grading/checkout-head.ts');
  try {
    return await resolveHead(repository, { allowedHosts: config('ALLOWED_GIT_HOSTS') });
  } catch (error) {
    if (error instanceof CheckoutError) throw repositoryUnreadable({ repository, reason: error.message });
    throw error;
  }
}
