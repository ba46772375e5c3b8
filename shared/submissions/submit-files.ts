/**
 * Submitting files to an Electronic File gradeable without version control: sent in a multipart
 * body, or uploaded to the submissions bucket with presigned POSTs and then confirmed. Every rule
 * is checked before anything is written; the files are stored under a files id of their own before
 * the version's transaction (submit.ts's, the same as a VCS submission's), which records that id on
 * the version: its grading and its downloads read exactly what was submitted with it, even when
 * another submission raced it for the version number.
 */
import { createHash } from 'node:crypto';
import { courseGroups, type Course } from '#shared/courses/course.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import type { Refusal } from '#shared/errors.ts';
import { consumeUpload, idempotencyRef, type StoredAnswer } from '#shared/data/idempotency.ts';
import { getItems } from '#shared/data/items.ts';
import { isValidIdempotencyKey } from '#shared/ids.ts';
import {
  fileNameOf,
  newFilesId,
  uploadKey,
  uploadName,
  versionFilesKey,
  versionFilesPrefix,
  type SubmitterFolder,
} from '#shared/storage/keys.ts';
import {
  copyObject,
  deleteObjects,
  getObjectBytes,
  headObject,
  listObjects,
  presignDownload,
  presignUpload,
  putObject,
  type PresignedUpload,
} from '#shared/storage/objects.ts';
import { filesOrUploads, noFiles, noSuchFileVersion, onlyFileGradeables, unknownUpload } from '#shared/files/failures.ts';
import { fileLimits, isZip, namesRefusal, operatorFileBounds, pathsRefusal, totalsRefusal, type FileLimits } from '#shared/files/rules.ts';
import { noActiveVersionFiles, notSameUser } from './failures.ts';
import { submitVersion, type SubmitContext, type VersionSource } from './submit.ts';
import type { Submission } from './submission.ts';

const refusedWith = (refusal: Refusal | undefined): void => {
  if (refusal) throw refusal;
};

/** How long a presigned upload form may be used. */
export const UPLOAD_SECONDS = 15 * 60;
/** How long a download link lasts. */
export const DOWNLOAD_SECONDS = 5 * 60;

/** A file of a multipart body. */
export interface IncomingFile {
  readonly name: string;
  readonly content: Buffer;
}

export interface FilesContext extends Omit<SubmitContext, 'fields'> {
  readonly userId?: string | undefined;
}

/** The gradeable, provided it is open to the caller and takes files; its limits. */
function fileGradeable(context: Omit<FilesContext, 'idempotencyKey'>, now: Date): { gradeable: GradeableDocument; limits: FileLimits } {
  const { gradeable, enrollment } = context;
  const staff = enrollment.group <= courseGroups.fullAccessGrader;
  const open = gradeable && (staff || (gradeable.dates.submission_open_date ?? '') <= now.toISOString());
  if (!gradeable || !open) throw invalidGradeableId({ gradeable_id: context.gradeableId });
  acceptsFiles(gradeable);
  return { gradeable, limits: fileLimits(gradeable.submission_limits, operatorFileBounds()) };
}

function acceptsFiles(gradeable: GradeableDocument): void {
  if (gradeable.type !== 'Electronic File' || gradeable.vcs) throw onlyFileGradeables();
}

/** One file of the version as checked: where it comes from, and what it unpacks to. */
interface CheckedFile {
  readonly name: string;
  readonly size: number;
  readonly content?: Buffer;
  readonly uploadKey?: string;
}

/**
 * Checks the files against the gradeable's limits as they will be graded: names, then each zip
 * read through (its own rules, its files and bytes counted with the rest), then the totals.
 */
async function checkFiles(files: readonly { name: string; size: number; bytes: () => Promise<Buffer | undefined> }[], limits: FileLimits) {
  refusedWith(namesRefusal(files.map((file) => file.name)));
  const paths: string[] = [];
  let bytes = 0;
  for (const file of files) {
    const zip = file.name.toLowerCase().endsWith('.zip') ? await file.bytes() : undefined;
    if (zip && isZip(file.name, zip)) {
      const { readZip } = await import('#shared/files/zip.ts');
      const inside = await readZip(file.name, zip, { ...limits, usedFiles: paths.length, usedBytes: bytes });
      for (const entry of inside) {
        paths.push(entry.path);
        bytes += entry.size;
      }
    } else {
      paths.push(file.name);
      bytes += file.size;
    }
    refusedWith(totalsRefusal(Math.max(paths.length, 1), bytes, limits));
  }
  refusedWith(pathsRefusal(paths));
  refusedWith(totalsRefusal(paths.length, bytes, limits));
}

const folderOf = (owner: { term: string; course: string; gradeableId: string; ownerId: string }): SubmitterFolder => ({
  term: owner.term,
  course: owner.course,
  gradeable: owner.gradeableId,
  submitter: owner.ownerId,
});

/**
 * Creates a version from files: `files` of a multipart body, or `uploadIds` of the caller's
 * confirmed presigned uploads (never both). Answers as a VCS submission does.
 */
export async function submitFiles(
  context: FilesContext,
  input: { readonly files?: readonly IncomingFile[] | undefined; readonly uploadIds?: readonly string[] | undefined },
  now = new Date(),
): Promise<string> {
  const { caller, enrollment, course } = context;
  const target = context.userId ?? caller.userId;
  if (target !== caller.userId && enrollment.group > courseGroups.fullAccessGrader) throw notSameUser();
  if (input.files?.length && input.uploadIds?.length) throw filesOrUploads();
  const { gradeable, limits } = fileGradeable(context, now);
  const uploads = folderOfUploads(course, gradeable.id, caller.userId);
  // The message names the upload as sent, shortened.
  const unknown = (index: number) => unknownUpload({ upload_id: (input.uploadIds?.[index] ?? '').slice(0, 200) });
  let checked: CheckedFile[] = [];
  // A request sent again with its Idempotency-Key after its version consumed the uploads: its first answer.
  let answered: StoredAnswer | undefined;
  if (input.uploadIds?.length) {
    for (const [index, id] of input.uploadIds.entries()) {
      const name = uploadName(id);
      const key = name === undefined ? undefined : uploadKey(uploads, id);
      if (!name || !key) throw unknown(index);
      const head = answered ? undefined : await headObject(key);
      if (!head && !answered) answered = await answeredBefore(caller.userId, context.idempotencyKey);
      if (!head && !answered) throw unknown(index);
      checked.push({ name, size: head?.size ?? 0, uploadKey: key });
    }
    // Answered before: nothing is stored again; submitVersion answers as the first time (or refuses another request under that key).
    if (!answered)
      await checkFiles(
        checked.map((file) => ({
          name: file.name,
          size: file.size,
          bytes: () => getObjectBytes(file.uploadKey as string, limits.maxBytes + 1),
        })),
        limits,
      );
  } else {
    checked = (input.files ?? []).map((file) => ({ name: file.name, size: file.content.length, content: file.content }));
    if (checked.length === 0) throw noFiles();
    await checkFiles(
      checked.map((file) => ({ name: file.name, size: file.size, bytes: async () => file.content })),
      limits,
    );
  }

  const identity = createHash('sha256');
  for (const file of checked) {
    identity.update(`${file.name}\0`);
    if (file.content) identity.update(createHash('sha256').update(file.content).digest());
    else identity.update(`${file.uploadKey}\0`);
  }
  const filesId = newFilesId();
  // Every key written (a submission that starts over on a gradeable changed meanwhile stores again, for its owner then).
  const keys = new Set<string>();
  // An upload checked, then gone before its copy: consumed by a version since (refused as unknownUpload, or answered as the first time).
  let gone: Refusal | undefined;
  const copy = async (file: CheckedFile, key: string): Promise<void> => {
    if (await copyObject(file.uploadKey as string, key)) return;
    gone ??= unknown(checked.indexOf(file));
    throw gone;
  };
  const source: VersionSource = {
    accepts: acceptsFiles,
    identity: { files: identity.digest('base64url') },
    files: filesId,
    // Each upload is consumed by the version's own transaction: of confirmations racing (a double
    // click, a retry without an Idempotency-Key) one creates a version, the others are refused as a
    // confirmation sent after it is (its uploads are gone by then).
    ...(input.uploadIds?.length
      ? {
          claims: {
            items: checked.map((file) => consumeUpload(file.uploadKey as string, now)),
            taken: unknown,
          },
        }
      : {}),
    store: async (owner) => {
      const folder = folderOf(owner);
      // Every write ended before any is thrown, so that discard removes all of them.
      const writes = await Promise.allSettled(
        checked.map((file) => {
          const key = versionFilesKey(folder, filesId, file.name);
          keys.add(key);
          return file.content ? putObject(key, file.content) : copy(file, key);
        }),
      );
      const failed = writes.find((write) => write.status === 'rejected');
      if (failed) throw failed.reason;
    },
    // No version records these files: nothing reads them. What cannot be deleted now stays unread until the term's versions expire.
    discard: async () => {
      if (keys.size > 0) await deleteObjects([...keys]).catch(() => undefined);
    },
    stored: async () => {
      const keys = checked.flatMap((file) => (file.uploadKey ? [file.uploadKey] : []));
      // Confirmed uploads are copies now; what is left expires anyway.
      if (keys.length > 0) await deleteObjects(keys).catch(() => undefined);
    },
  };
  const fields = { ...(context.userId !== undefined ? { userId: context.userId } : {}) };
  // What submitVersion reads with its first answer (without preloaded items, it reads them itself).
  const answeredWith = (previous: StoredAnswer | undefined) =>
    previous && context.loaded ? { loaded: { ...context.loaded, previous } } : {};
  try {
    return await submitVersion({ ...context, fields, ...answeredWith(answered) }, source, now);
  } catch (error) {
    const previous = error === gone ? await answeredBefore(caller.userId, context.idempotencyKey) : undefined;
    if (!previous) throw error;
    return submitVersion({ ...context, fields, ...answeredWith(previous) }, source, now);
  }
}

/**
 * The first answer to a request sent with `idempotencyKey`, read now: an upload found gone may
 * have been consumed by that request's own version since the request's reads.
 */
async function answeredBefore(callerId: string, idempotencyKey: string | undefined): Promise<StoredAnswer | undefined> {
  if (idempotencyKey === undefined || !isValidIdempotencyKey(idempotencyKey)) return undefined;
  return (await getItems({ previous: idempotencyRef(`${callerId}#${idempotencyKey}`) })).previous;
}

/** The caller's own uploads of a gradeable: only they can confirm them. */
const folderOfUploads = (course: Course, gradeableId: string, callerId: string): SubmitterFolder => ({
  term: course.term,
  course: course.course,
  gradeable: gradeableId,
  submitter: callerId,
});

/** One presigned upload form per declared file, after the same checks as a submission's (names, count, bytes). */
export async function presignUploads(
  context: Omit<FilesContext, 'idempotencyKey' | 'userId'>,
  files: readonly { readonly name: string; readonly size: number }[],
  now = new Date(),
): Promise<{ uploads: ({ name: string; upload_id: string } & PresignedUpload)[] }> {
  const { gradeable, limits } = fileGradeable(context, now);
  refusedWith(namesRefusal(files.map((file) => file.name)));
  refusedWith(
    totalsRefusal(
      files.length,
      files.reduce((sum, file) => sum + file.size, 0),
      limits,
    ),
  );
  const { newUploadId } = await import('#shared/storage/keys.ts');
  const folder = folderOfUploads(context.course, gradeable.id, context.caller.userId);
  const uploads = await Promise.all(
    files.map(async (file) => {
      const upload_id = newUploadId(file.name);
      const form = await presignUpload(uploadKey(folder, upload_id), { maxBytes: file.size, expiresSeconds: UPLOAD_SECONDS });
      return { name: file.name, upload_id, ...form };
    }),
  );
  return { uploads };
}

/** A version's files (by default the active version's), each with a short-lived download link. */
export async function versionFiles(
  gradeable: GradeableDocument,
  submission: Submission | undefined,
  asked: number | undefined,
): Promise<{ version: number; files: { name: string; size: number; url: string }[] }> {
  const version = asked ?? submission?.activeVersion ?? 0;
  if (asked === undefined && version === 0) throw noActiveVersionFiles();
  const filesId = submission?.versions.find((entry) => entry.version === version)?.files;
  if (!submission || filesId === undefined || gradeable.vcs) throw noSuchFileVersion({ version });
  const objects = await listObjects(versionFilesPrefix(folderOf(submission), filesId));
  if (objects.length === 0) throw noSuchFileVersion({ version });
  const files = await Promise.all(
    objects.map(async (object) => {
      const name = fileNameOf(object.key);
      return { name, size: object.size, url: await presignDownload(object.key, { expiresSeconds: DOWNLOAD_SECONDS, fileName: name }) };
    }),
  );
  return { version, files };
}
