/**
 * A student's presigned uploads: declared (one presigned POST form per file, after the same checks
 * as a submission's), found and checked when a files submission confirms them, and claimed by the
 * version that consumes them. Each upload is consumed by that version's own transaction: of
 * confirmations racing (a double click, a retry without an Idempotency-Key) one creates a version,
 * the others are refused as a confirmation sent after it is (its uploads are gone by then).
 */
import type { Course } from '#shared/courses/course.ts';
import { consumeUpload, type StoredAnswer } from '#shared/data/idempotency.ts';
import type { Refusal } from '#shared/errors.ts';
import { unknownUpload } from '#shared/files/failures.ts';
import { namesRefusal, totalsRefusal, type FileLimits } from '#shared/files/rules.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { uploadKey, uploadName, type SubmitterFolder } from '#shared/storage/keys.ts';
import { getObjectBytes, headObject, presignUpload, type PresignedUpload } from '#shared/storage/objects.ts';
import { answeredBefore } from './files-answer.ts';
import { checkFiles, fileGradeable, refusedWith, type CheckedFile, type FilesContext } from './files-check.ts';
import type { VersionContent } from './submit-plan.ts';

/** How long a presigned upload form may be used. */
export const UPLOAD_SECONDS = 15 * 60;

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

/** The refusal of the upload at `index` among those sent: unknown (the message names it as sent, shortened). */
export const unknownUploadOf =
  (uploadIds: readonly string[]) =>
  (index: number): Refusal =>
    unknownUpload({ upload_id: (uploadIds[index] ?? '').slice(0, 200) });

/**
 * The caller's uploads `uploadIds`, each found, then checked with its bytes; `answered`: the first
 * answer under the request's Idempotency-Key, when an upload is gone because that request's version
 * consumed it (nothing is checked or stored again then).
 */
export async function checkedUploads(
  context: FilesContext,
  gradeable: GradeableDocument,
  uploadIds: readonly string[],
  limits: FileLimits,
): Promise<{ checked: CheckedFile[]; answered?: StoredAnswer | undefined }> {
  const { caller, course } = context;
  const unknown = unknownUploadOf(uploadIds);
  const uploads = folderOfUploads(course, gradeable.id, caller.userId);
  const checked: CheckedFile[] = [];
  let answered: StoredAnswer | undefined;
  for (const [index, id] of uploadIds.entries()) {
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

/** The version's claims of its uploads: each consumed in its transaction, refused as unknown once another version took it. */
export function uploadClaims(
  checked: readonly CheckedFile[],
  uploadIds: readonly string[],
  now: Date,
): NonNullable<VersionContent['claims']> {
  const unknown = unknownUploadOf(uploadIds);
  return checked.map((file, index) => ({ item: consumeUpload(file.uploadKey as string, now), taken: unknown(index) }));
}
