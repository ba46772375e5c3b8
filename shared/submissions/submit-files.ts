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
import { filesOrUploads, noFiles, noSuchFileVersion, unknownUpload } from '#shared/files/failures.ts';
import { fileLimits, isZip, namesRefusal, operatorFileBounds, pathsRefusal, totalsRefusal, type FileLimits } from '#shared/files/rules.ts';
import { noActiveVersionFiles, notSameUser } from './failures.ts';
import type { RepositoryOwner } from '#shared/gradeables/repository.ts';
import type { SubmitContext } from './submit.ts';
import { answerAgain, VersionCommit } from './submit-commit.ts';
import type { VersionContent } from './submit-plan.ts';
import { admit, answeredOrRefused, firstRead, type Admitted, type VersionRequest } from './submit-refuse.ts';
import { closedCourseRefusal, kindRefusal } from './submit-refusals.ts';
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
  refusedWith(closedCourseRefusal(context.course));
  const staff = enrollment.group <= courseGroups.fullAccessGrader;
  const open = gradeable && (staff || (gradeable.dates.submission_open_date ?? '') <= now.toISOString());
  if (!gradeable || !open) throw invalidGradeableId({ gradeable_id: context.gradeableId });
  acceptsFiles(gradeable);
  return { gradeable, limits: fileLimits(gradeable.submission_limits, operatorFileBounds()) };
}

function acceptsFiles(gradeable: GradeableDocument): void {
  refusedWith(kindRefusal(gradeable, 'files'));
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
 * confirmed presigned uploads (never both). Answers as a VCS submission does: the same steps
 * (submit.ts), with the files stored between the refusals and the transaction.
 */
export async function submitFiles(context: FilesContext, input: FilesInput, now = new Date()): Promise<string> {
  const { caller, enrollment } = context;
  const target = context.userId ?? caller.userId;
  if (target !== caller.userId && enrollment.group > courseGroups.fullAccessGrader) throw notSameUser();
  if (input.files?.length && input.uploadIds?.length) throw filesOrUploads();
  const { gradeable, limits } = fileGradeable(context, now);
  // The message names the upload as sent, shortened.
  const unknown = (index: number) => unknownUpload({ upload_id: (input.uploadIds?.[index] ?? '').slice(0, 200) });
  const { checked, answered } = await checkedFiles(context, gradeable, input, limits, unknown);
  const files = versionFilesStore(checked, unknown);
  const request: VersionRequest = {
    kind: 'files',
    identity: { files: identityOf(checked) },
    claims: input.uploadIds?.length ? checked.length : 0,
  };
  // Each upload is consumed by the version's own transaction: of confirmations racing (a double
  // click, a retry without an Idempotency-Key) one creates a version, the others are refused as a
  // confirmation sent after it is (its uploads are gone by then).
  const claims = input.uploadIds?.length
    ? { claims: checked.map((file, index) => ({ item: consumeUpload(file.uploadKey as string, now), taken: unknown(index) })) }
    : {};
  const content: VersionContent = { files: files.id, ...claims };
  const fields = { ...(context.userId !== undefined ? { userId: context.userId } : {}) };
  // Answered before (its uploads consumed by its own version): read with the rest, as the first answer.
  let current: SubmitContext = {
    ...context,
    fields,
    ...(answered && context.loaded ? { loaded: { ...context.loaded, previous: answered } } : {}),
  };
  let admitted: Admitted | undefined;
  let commit: VersionCommit | undefined;
  try {
    for (;;) {
      admitted = await admit(current, request, now);
      const first = await firstRead(admitted, current);
      // A submission that starts over on a gradeable changed meanwhile stores again, for its owner then.
      if (!answeredOrRefused(admitted, first, now)) await files.store(admitted.owner);
      commit = new VersionCommit(admitted, first, content, now);
      const committed = await commit.run();
      if (committed.next === 'answer') {
        if (commit.jobMayBeWritten) await files.consumed();
        return committed.answer;
      }
      current = { ...current, gradeable: committed.gradeable };
    }
  } catch (error) {
    // An upload gone before its copy: consumed by a version since, perhaps this request's own under its Idempotency-Key.
    const previous = files.isGone(error) ? await answeredBefore(caller.userId, context.idempotencyKey) : undefined;
    if (!previous || !admitted?.idempotency) throw error;
    return await answerAgain(previous, admitted.idempotency.fingerprint);
  } finally {
    // Files no version records (a transaction whose outcome is unknown may have recorded them: kept).
    if (!commit?.jobMayBeWritten) await files.discard();
  }
}

export interface FilesInput {
  readonly files?: readonly IncomingFile[] | undefined;
  readonly uploadIds?: readonly string[] | undefined;
}

/**
 * The files as checked: the multipart body's, or the caller's uploads (each found, then checked
 * with its bytes); `answered`: the first answer under the request's Idempotency-Key, when an upload
 * is gone because that request's version consumed it (nothing is checked or stored again then).
 */
async function checkedFiles(
  context: FilesContext,
  gradeable: GradeableDocument,
  input: FilesInput,
  limits: FileLimits,
  unknown: (index: number) => Refusal,
): Promise<{ checked: CheckedFile[]; answered?: StoredAnswer | undefined }> {
  const { caller, course } = context;
  if (!input.uploadIds?.length) {
    const checked = (input.files ?? []).map((file) => ({ name: file.name, size: file.content.length, content: file.content }));
    if (checked.length === 0) throw noFiles();
    await checkFiles(
      checked.map((file) => ({ name: file.name, size: file.size, bytes: async () => file.content })),
      limits,
    );
    return { checked };
  }
  const uploads = folderOfUploads(course, gradeable.id, caller.userId);
  const checked: CheckedFile[] = [];
  let answered: StoredAnswer | undefined;
  for (const [index, id] of input.uploadIds.entries()) {
    const name = uploadName(id);
    const key = name === undefined ? undefined : uploadKey(uploads, id);
    if (!name || !key) throw unknown(index);
    const head = answered ? undefined : await headObject(key);
    if (!head && !answered) answered = await answeredBefore(caller.userId, context.idempotencyKey);
    if (!head && !answered) throw unknown(index);
    checked.push({ name, size: head?.size ?? 0, uploadKey: key });
  }
  if (answered) return { checked, answered };
  const bytes = (file: CheckedFile) => () => getObjectBytes(file.uploadKey as string, limits.maxBytes + 1);
  await checkFiles(
    checked.map((file) => ({ name: file.name, size: file.size, bytes: bytes(file) })),
    limits,
  );
  return { checked };
}

/** What the Idempotency-Key's fingerprint covers of the files: their names and contents (or uploads). */
function identityOf(checked: readonly CheckedFile[]): string {
  const identity = createHash('sha256');
  for (const file of checked) {
    identity.update(`${file.name}\0`);
    if (file.content) identity.update(createHash('sha256').update(file.content).digest());
    else identity.update(`${file.uploadKey}\0`);
  }
  return identity.digest('base64url');
}

/**
 * The version's files, stored under a files id of their own before its transaction (which records
 * the id), so a submission that loses the race for a version number never writes the winner's files.
 */
function versionFilesStore(checked: readonly CheckedFile[], unknown: (index: number) => Refusal) {
  const id = newFilesId();
  // Every key written (a submission that starts over on a gradeable changed meanwhile stores again, for its owner then).
  const keys = new Set<string>();
  // An upload checked, then gone before its copy: consumed by a version since (refused as unknownUpload, or answered as the first time).
  let gone: Refusal | undefined;
  const copy = async (file: CheckedFile, key: string): Promise<void> => {
    if (await copyObject(file.uploadKey as string, key)) return;
    gone ??= unknown(checked.indexOf(file));
    throw gone;
  };
  return {
    id,
    isGone: (error: unknown) => gone !== undefined && error === gone,
    store: async (owner: RepositoryOwner): Promise<void> => {
      const folder = folderOf(owner);
      // Every write ended before any is thrown, so that discard removes all of them.
      const writes = await Promise.allSettled(
        checked.map((file) => {
          const key = versionFilesKey(folder, id, file.name);
          keys.add(key);
          return file.content ? putObject(key, file.content) : copy(file, key);
        }),
      );
      const failed = writes.find((write) => write.status === 'rejected');
      if (failed) throw failed.reason;
    },
    // No version records these files: nothing reads them. What cannot be deleted now stays unread until the term's versions expire.
    discard: async (): Promise<void> => {
      if (keys.size > 0) await deleteObjects([...keys]).catch(() => undefined);
    },
    /** Once the version's transaction went through: confirmed uploads are copies now; what is left expires anyway. */
    consumed: async (): Promise<void> => {
      const uploads = checked.flatMap((file) => (file.uploadKey ? [file.uploadKey] : []));
      if (uploads.length > 0) await deleteObjects(uploads).catch(() => undefined);
    },
  };
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
