import { randomUUID } from 'node:crypto';
import type { Course } from '#shared/courses/course.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { courseId } from '#shared/data/keys.ts';
import { courseExists } from '#shared/data/courses.ts';
import { createGradeableItem, gradeableRef, newGates } from '#shared/data/gradeables.ts';
import { getItems } from '#shared/data/items.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { conflict } from '#shared/errors.ts';
import { COMMAND_LINE_ACTOR } from '#shared/ids.ts';
import type { GradeableDocument } from './gradeable.ts';
import { checkedDocument, changedFields } from './change.ts';
import { downloadForm } from './listing.ts';

export { gradeableIdFrom } from './gradeable.ts';

const gradeableExists = () => conflict('An error has occurred: Gradeable already exists');

/**
 * Creates a gradeable from its JSON: every problem is reported (the first as the message, all in
 * `data`), and an accepted document is written whole or not at all, with its audit entry.
 * `dryRun`: checks it (the id still free included) and answers what would be stored, in download
 * form, writing nothing.
 */
export async function uploadGradeable(course: Course, input: unknown, now?: Date): Promise<string>;
export async function uploadGradeable(
  course: Course,
  input: unknown,
  now: Date | undefined,
  options: { actor?: string; dryRun?: boolean },
): Promise<string | GradeableDocument>;
export async function uploadGradeable(
  course: Course,
  input: unknown,
  now = new Date(),
  options: { actor?: string; dryRun?: boolean } = {},
): Promise<string | GradeableDocument> {
  const document = checkedDocument(course, input, now);
  if (options.dryRun) {
    const { taken } = await getItems({ taken: gradeableRef(course.term, course.course, document.id) });
    if (taken) throw gradeableExists();
    return downloadForm(document, course.timeZone);
  }
  const audit = auditEntry(
    { courseId: courseId(course.term, course.course) },
    {
      actor: options.actor ?? COMMAND_LINE_ACTOR,
      action: 'gradeable.created',
      target: document.id,
      ...changedFields({}, downloadForm(document, course.timeZone) as never),
    },
    now,
  );
  await writeGradeables(course, [document], [audit]);
  return document.id;
}

export async function writeGradeables(
  course: Pick<Course, 'term' | 'course'>,
  documents: readonly GradeableDocument[],
  alongside: readonly TransactItem[] = [],
) {
  const generations = documents.map(() => randomUUID());
  try {
    await transactWrite([
      ...documents.map((document, index) => createGradeableItem(course.term, course.course, document, generations[index])),
      courseExists(course.term, course.course),
      ...alongside,
      // Its gates at its own generation: nothing read from a deleted gradeable of the same id passes them.
      ...documents.flatMap((document, index) => newGates(course.term, course.course, document.id, generations[index] ?? '')),
    ]);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.some((index) => index < documents.length)) throw gradeableExists();
    throw error;
  }
}
