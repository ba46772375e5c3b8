/**
 * What a files submission and a declaration of uploads check before anything is written: the
 * gradeable takes files and is open to the caller, and the files keep to its limits as they will
 * be graded (names, each zip read through, the totals).
 */
import { courseGroups } from '#shared/courses/course.ts';
import type { Refusal } from '#shared/errors.ts';
import { fileLimits, isZip, namesRefusal, operatorFileBounds, pathsRefusal, totalsRefusal, type FileLimits } from '#shared/files/rules.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import type { SubmitContext } from './submit-refuse.ts';
import { closedCourseRefusal, kindRefusal } from './submit-refusals.ts';

export const refusedWith = (refusal: Refusal | undefined): void => {
  if (refusal) throw refusal;
};

/** A file of a multipart body. */
export interface IncomingFile {
  readonly name: string;
  readonly content: Buffer;
}

export interface FilesContext extends Omit<SubmitContext, 'fields'> {
  readonly userId?: string | undefined;
}

/** One file of the version as checked: where it comes from, and what it unpacks to. */
export interface CheckedFile {
  readonly name: string;
  readonly size: number;
  readonly content?: Buffer;
  readonly uploadKey?: string;
}

/** The gradeable, provided it is open to the caller and takes files; its limits. */
export function fileGradeable(
  context: Omit<FilesContext, 'idempotencyKey'>,
  now: Date,
): { gradeable: GradeableDocument; limits: FileLimits } {
  const { gradeable, enrollment } = context;
  refusedWith(closedCourseRefusal(context.course));
  const staff = enrollment.group <= courseGroups.fullAccessGrader;
  const open = gradeable && (staff || (gradeable.dates.submission_open_date ?? '') <= now.toISOString());
  if (!gradeable || !open) throw invalidGradeableId({ gradeable_id: context.gradeableId });
  refusedWith(kindRefusal(gradeable, 'files'));
  return { gradeable, limits: fileLimits(gradeable.submission_limits, operatorFileBounds()) };
}

/**
 * Checks the files against the gradeable's limits as they will be graded: names, then each zip
 * read through (its own rules, its files and bytes counted with the rest), then the totals.
 */
export async function checkFiles(
  files: readonly { name: string; size: number; bytes: () => Promise<Buffer | undefined> }[],
  limits: FileLimits,
) {
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
