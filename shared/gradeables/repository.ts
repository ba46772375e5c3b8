import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
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

/** The folder of a `file://` repository, links resolved; or why it may not be read, for the student's check. */
export type FileRepository = { readonly folder: string } | { readonly refusal: string };

export const FILE_REPOSITORIES_OFF = 'file:// repository addresses are not allowed on this server';

/** Whether `path` lies strictly inside `folder` (both absolute and normalized). */
const strictlyInside = (folder: string, path: string) => {
  const rel = relative(folder, path);
  return rel !== '' && rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel);
};

/**
 * The folder a `file://` repository address names (`path`, absolute), if this server may read it:
 * only when `FILE_REPOSITORIES_DIR` names a folder, and only strictly inside it, both as written
 * and once every link is resolved, so neither `..` nor a link leads to the data folder (which
 * `npm start` keeps apart from it) or anywhere else. The checkout asks again for each folder it
 * reads (the repository's, its `.git`).
 */
export async function fileRepositoryFolder(path: string): Promise<FileRepository> {
  const root = config('FILE_REPOSITORIES_DIR');
  if (!root) return { refusal: FILE_REPOSITORIES_OFF };
  const outside = { refusal: `${path} is outside this server's repositories folder` };
  const realRoot = await realpath(root).catch(() => undefined);
  if (!realRoot) return { refusal: "this server's repositories folder is missing" };
  const written = resolve(path);
  // Outside as written: refused without looking, so nothing tells which paths exist out there.
  if (!strictlyInside(resolve(root), written) && !strictlyInside(realRoot, written)) return outside;
  const real = await realpath(written).catch(() => undefined);
  if (!real) return { refusal: `${path} is not a folder` };
  if (!strictlyInside(realRoot, real)) return outside;
  if (!(await stat(real).catch(() => undefined))?.isDirectory()) return { refusal: `${path} is not a folder` };
  return { folder: real };
}
