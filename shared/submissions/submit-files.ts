/**
 * Submitting files to an Electronic File gradeable without version control: sent in a multipart
 * body, or uploaded to the submissions bucket with presigned POSTs and then confirmed (uploads.ts).
 * Every rule is checked before anything is written (files-check.ts); the files are stored under a
 * files id of their own before the version's transaction (shared/storage/version-files.ts; the
 * transaction is submit.ts's, the same as a VCS submission's), which records that id on the
 * version: its grading and its downloads read exactly what was submitted with it, even when
 * another submission raced it for the version number.
 */
import { createHash } from 'node:crypto';
import { courseGroups } from '#shared/courses/course.ts';
import type { StoredAnswer } from '#shared/data/idempotency.ts';
import { filesOrUploads, noFiles, noSuchFileVersion } from '#shared/files/failures.ts';
import type { FileLimits } from '#shared/files/rules.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { fileNameOf, versionFilesPrefix, type SubmitterFolder } from '#shared/storage/keys.ts';
import { listObjects, presignDownload } from '#shared/storage/objects.ts';
import { versionFilesStore, type VersionFilesStore } from '#shared/storage/version-files.ts';
import { answerOfGoneUpload } from './files-answer.ts';
import { checkFiles, fileGradeable, type CheckedFile, type FilesContext, type IncomingFile } from './files-check.ts';
import { noActiveVersionFiles, notSameUser } from './failures.ts';
import { VersionCommit, type SubmitAnswer } from './submit-commit.ts';
import type { VersionContent } from './submit-plan.ts';
import { admit, answeredOrRefused, firstRead, type Admitted, type SubmitContext, type VersionRequest } from './submit-refuse.ts';
import type { Submission } from './submission.ts';
import { checkedUploads, unknownUploadOf, uploadClaims } from './uploads.ts';

export type { FilesContext, IncomingFile } from './files-check.ts';

/** How long a download link lasts. */
export const DOWNLOAD_SECONDS = 5 * 60;

export interface FilesInput {
  readonly files?: readonly IncomingFile[] | undefined;
  readonly uploadIds?: readonly string[] | undefined;
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
export async function submitFiles(context: FilesContext, input: FilesInput, now = new Date()): Promise<SubmitAnswer> {
  const { caller, enrollment } = context;
  const target = context.userId ?? caller.userId;
  if (target !== caller.userId && enrollment.group > courseGroups.fullAccessGrader) throw notSameUser();
  if (input.files?.length && input.uploadIds?.length) throw filesOrUploads();
  const { gradeable, limits } = fileGradeable(context, now);
  const uploadIds = input.uploadIds ?? [];
  const { checked, answered } = await checkedFiles(context, gradeable, input, limits);
  const files = versionFilesStore(checked, unknownUploadOf(uploadIds));
  const request: VersionRequest = {
    kind: 'files',
    identity: { files: identityOf(checked) },
    claims: uploadIds.length ? checked.length : 0,
  };
  const claims = uploadIds.length ? { claims: uploadClaims(checked, uploadIds, now) } : {};
  const fields = { ...(context.userId !== undefined ? { userId: context.userId } : {}) };
  // Answered before (its uploads consumed by its own version): read with the rest, as the first answer.
  const loaded = answered && context.loaded ? { loaded: { ...context.loaded, previous: answered } } : {};
  return commitFiles({ ...context, fields, ...loaded }, request, { files: files.id, ...claims }, files, now);
}

/** The steps of every submission (admit, read, commit), with the files stored before the commit and deleted when no version records them. */
async function commitFiles(
  context: SubmitContext,
  request: VersionRequest,
  content: VersionContent,
  files: VersionFilesStore,
  now: Date,
): Promise<SubmitAnswer> {
  let current = context;
  let admitted: Admitted | undefined;
  let commit: VersionCommit | undefined;
  try {
    for (;;) {
      admitted = await admit(current, request, now);
      const first = await firstRead(admitted, current, now);
      // A submission that starts over on a gradeable changed meanwhile stores again, for its owner then.
      if (!answeredOrRefused(admitted, first, now)) await files.store(folderOf(admitted.owner));
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
    return await answerOfGoneUpload(error, files, { callerId: context.caller.userId, idempotencyKey: context.idempotencyKey, admitted });
  } finally {
    // Files no version records (a transaction whose outcome is unknown may have recorded them: kept).
    if (!commit?.jobMayBeWritten) await files.discard();
  }
}

/**
 * The files as checked: the multipart body's, or the caller's uploads (uploads.ts); `answered`: the
 * first answer under the request's Idempotency-Key, when an upload is gone because that request's
 * version consumed it.
 */
async function checkedFiles(
  context: FilesContext,
  gradeable: GradeableDocument,
  input: FilesInput,
  limits: FileLimits,
): Promise<{ checked: CheckedFile[]; answered?: StoredAnswer | undefined }> {
  if (input.uploadIds?.length) return checkedUploads(context, gradeable, input.uploadIds, limits);
  const checked = (input.files ?? []).map((file) => ({ name: file.name, size: file.content.length, content: file.content }));
  if (checked.length === 0) throw noFiles();
  await checkFiles(
    checked.map((file) => ({ name: file.name, size: file.size, bytes: async () => file.content })),
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
