import type { Course } from '#shared/courses/course.ts';
import { courseExists } from '#shared/data/courses.ts';
import { createGradeableItem } from '#shared/data/gradeables.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { Refusal, conflict } from '#shared/errors.ts';
import { gradeableNotFound, gradeableNotSpecified } from './failures.ts';
import type { GradeableDocument } from './gradeable.ts';
import { isValidGradeableId } from '#shared/ids.ts';
import { REQUIRES_ID_TITLE_TYPE, validateGradeable } from './validate.ts';

/** A gradeable id from a path: blank is "not specified", anything malformed cannot exist. */
export function gradeableIdFrom(value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw gradeableNotSpecified();
  if (!isValidGradeableId(value)) throw gradeableNotFound();
  return value;
}

/**
 * Creates a gradeable from its JSON: every problem is reported (the first as the message, all in
 * `data`), and an accepted document is written whole or not at all.
 */
export async function uploadGradeable(course: Course, input: unknown, now = new Date()): Promise<string> {
  const result = validateGradeable(input, { timeZone: course.timeZone, now });
  if (!result.document) {
    const message = result.errors[0]?.message ?? 'The gradeable JSON is not valid.';
    throw new Refusal(message === REQUIRES_ID_TITLE_TYPE ? 'invalid' : 'unprocessable', message, { data: result.errors });
  }
  await writeGradeables(course, [result.document]);
  return result.document.id;
}

export async function writeGradeables(course: Pick<Course, 'term' | 'course'>, documents: readonly GradeableDocument[]) {
  try {
    await transactWrite([
      ...documents.map((document) => createGradeableItem(course.term, course.course, document)),
      courseExists(course.term, course.course),
    ]);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.some((index) => index < documents.length)) throw conflict('An error has occurred: Gradeable already exists');
    throw error;
  }
}
