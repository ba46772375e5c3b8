/**
 * Where the submissions bucket keeps what: the key layout every function and the bucket's
 * lifecycle rules (infra/aws) agree on.
 *
 * - `uploads/<term>/<course>/<gradeable>/<submitter>/<upload id>`: a file a student sent straight
 *   to the bucket with a presigned POST and has not confirmed yet. The submitter is part of the
 *   key, so a confirmation builds the key from its own caller and can never name someone else's
 *   upload. Whatever is still here after a day expires.
 * - `versions/<term>/<course>/<gradeable>/<submitter>/<files id>/<name>`: the files of one version,
 *   kept as their own objects (a version never changes). The files id is new for every submission
 *   and recorded on its version in the version's own transaction: two submissions racing for one
 *   version number never write each other's files, and the loser's are never read. An operator
 *   can expire a term's versions.
 * - `exports/<term>/<course>/<export id>.csv`: a gradebook export, read through presigned GETs of
 *   a few minutes; whatever is here after a week expires.
 * - `fingerprints/<term>/<course>/<gradeable>/<submitter>/<files id>.<language>.json`: a files
 *   version's similarity fingerprints (shared/similarity/job.ts), written by the first run that
 *   compares it and read by every later one, this term's and later terms'; they expire as the
 *   deployment's `similarityFingerprintDays` says. A version submitted from a repository has them
 *   under its commit instead of a files id (`<commit>.<language>.json`), beside the text of the
 *   files compared (`<commit>.sources.json`), which it has nowhere else.
 */
import { randomUUID } from 'node:crypto';

/** The bucket's key areas, each with its own lifecycle and its own grants. */
export type ObjectArea = 'uploads' | 'versions' | 'exports' | 'fingerprints';
export const UPLOADS_PREFIX = 'uploads/';
export const VERSIONS_PREFIX = 'versions/';
export const EXPORTS_PREFIX = 'exports/';
export const FINGERPRINTS_PREFIX = 'fingerprints/';
export const AREA_PREFIXES: Readonly<Record<ObjectArea, string>> = {
  uploads: UPLOADS_PREFIX,
  versions: VERSIONS_PREFIX,
  exports: EXPORTS_PREFIX,
  fingerprints: FINGERPRINTS_PREFIX,
};

/** Whose files, of which gradeable: the folder shared by a student's (or team's) uploads and versions. */
export interface SubmitterFolder {
  readonly term: string;
  readonly course: string;
  readonly gradeable: string;
  /** The user id, or the team id of a team gradeable. */
  readonly submitter: string;
}

/**
 * One key segment as it is. Ids reach here already validated; a segment that could change the
 * key's shape (a slash, `.`/`..`, control characters, empty) is a programming error, never a key.
 */
function segment(what: string, value: string): string {
  // eslint-disable-next-line no-control-regex
  if (value === '' || value === '.' || value === '..' || /[/\u0000-\u001f\u007f]/.test(value))
    throw new Error(`Not a key segment (${what}): ${JSON.stringify(value)}`);
  return value;
}

const folderOf = (folder: SubmitterFolder): string =>
  [
    segment('term', folder.term),
    segment('course', folder.course),
    segment('gradeable', folder.gradeable),
    segment('submitter', folder.submitter),
  ].join('/');

/** `uploads/<term>/<course>/<gradeable>/<submitter>/`: every unconfirmed upload of a submitter. */
export const uploadsPrefix = (folder: SubmitterFolder): string => `${UPLOADS_PREFIX}${folderOf(folder)}/`;

/** The key of one unconfirmed upload. */
export const uploadKey = (folder: SubmitterFolder, uploadId: string): string => `${uploadsPrefix(folder)}${segment('upload id', uploadId)}`;

/** `versions/<term>/`: every version of a term (the lifecycle rule's prefix). */
export const termVersionsPrefix = (term: string): string => `${VERSIONS_PREFIX}${segment('term', term)}/`;

/** A new files id: where one submission's files go, whatever version number it ends up with. */
export const newFilesId = (): string => randomUUID();

/** `versions/<term>/<course>/<gradeable>/<submitter>/<files id>/`: the files of the version recording `filesId`. */
export const versionFilesPrefix = (folder: SubmitterFolder, filesId: string): string =>
  `${VERSIONS_PREFIX}${folderOf(folder)}/${segment('files id', filesId)}/`;

/** The key of one file of the version recording `filesId`. */
export const versionFilesKey = (folder: SubmitterFolder, filesId: string, name: string): string =>
  `${versionFilesPrefix(folder, filesId)}${segment('file name', name)}`;

/**
 * A new upload id that carries the file's declared name: `<random>.<name, base64url>`. The
 * confirmation reads the name back from the id (`uploadName`) instead of a record kept beside the
 * object, and the key never ends with the name itself (a presigned POST treats a key ending with
 * `${filename}` as a prefix).
 */
export const newUploadId = (name: string): string => `${randomUUID()}.${Buffer.from(name, 'utf8').toString('base64url')}`;

const UPLOAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.([A-Za-z0-9_-]+)$/;

/** The declared name an upload id carries, or undefined when it is no upload id of `newUploadId`. */
export function uploadName(uploadId: string): string | undefined {
  const encoded = UPLOAD_ID.exec(uploadId)?.[1];
  if (encoded === undefined) return undefined;
  const name = Buffer.from(encoded, 'base64url').toString('utf8');
  // Only the exact encoding of a name is one (no padding variants, no invalid UTF-8).
  return Buffer.from(name, 'utf8').toString('base64url') === encoded && name !== '' ? name : undefined;
}

/** The file name of a version's key (its last segment). */
export const fileNameOf = (key: string): string => key.slice(key.lastIndexOf('/') + 1);

/** The key of a gradebook export's CSV. */
export const gradebookExportKey = (term: string, course: string, exportId: string): string =>
  `${EXPORTS_PREFIX}${segment('term', term)}/${segment('course', course)}/${segment('export id', exportId)}.csv`;

/** The key of a files version's fingerprints, for one language setting (`auto`: each file's extension's). */
export const fingerprintsKey = (folder: SubmitterFolder, filesId: string, language: string): string =>
  `${FINGERPRINTS_PREFIX}${folderOf(folder)}/${segment('files id', filesId)}.${segment('language', language)}.json`;

/**
 * The key of the compared files' text of a version submitted from a repository (it has no stored
 * files), beside its fingerprints under its commit: a similarity pair's passages are read from it.
 */
export const fingerprintSourcesKey = (folder: SubmitterFolder, commit: string): string =>
  `${FINGERPRINTS_PREFIX}${folderOf(folder)}/${segment('commit', commit)}.sources.json`;
