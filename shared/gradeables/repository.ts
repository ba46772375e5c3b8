import { config } from '#shared/config.ts';
import type { GradeableDocument } from './gradeable.ts';

export interface RepositoryOwner {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  /** The user, or their team on team gradeables. */
  readonly ownerId: string;
}

/** `VCS_BASE_URL`: where submitty-hosted repositories live. */
export const vcsBaseUrl = (): string => config('VCS_BASE_URL');

/**
 * A student's repository URL, derived only from the gradeable's VCS settings: submitty-hosted
 * repositories live at `<VCS_BASE_URL>/<term>/<course>/<gradeable>/<user>`; other types fill the
 * `{$gradeable_id}`, `{$user_id}`, `{$team_id}`, `{$term}` and `{$course}` placeholders of
 * vcs_path, or append the user id when it has none.
 */
export function repositoryUrl(vcs: NonNullable<GradeableDocument['vcs']>, owner: RepositoryOwner): string {
  const segment = (value: string) => encodeURIComponent(value);
  if (vcs.repository_type === 'submitty-hosted') {
    return [vcsBaseUrl(), owner.term, owner.course, owner.gradeableId, owner.ownerId]
      .map((part, index) => (index === 0 ? part : segment(part)))
      .join('/');
  }
  const placeholders: Record<string, string> = {
    '{$gradeable_id}': owner.gradeableId,
    '{$user_id}': owner.ownerId,
    '{$team_id}': owner.ownerId,
    '{$term}': owner.term,
    '{$course}': owner.course,
  };
  const entries = Object.entries(placeholders);
  if (!entries.some(([name]) => vcs.vcs_path.includes(name))) return `${vcs.vcs_path.replace(/\/+$/, '')}/${segment(owner.ownerId)}`;
  return entries.reduce((url, [name, value]) => url.split(name).join(segment(value)), vcs.vcs_path);
}
