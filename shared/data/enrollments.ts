import { courseId } from './keys.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.enrollments;

/** Per-course groups of reference.md §4: instructor, full access grader, limited access grader, student. */
export type CourseGroup = 1 | 2 | 3 | 4;

export interface Enrollment {
  readonly term: string;
  readonly course: string;
  readonly userId: string;
  readonly group: CourseGroup;
  readonly registrationSection: string | null;
  readonly rotatingSection: string | null;
  /** For limited and full access graders: the registration sections they grade. */
  readonly gradingSections: readonly string[];
}

export const decodeEnrollment = (item: Item): Enrollment => ({
  term: item.term as string,
  course: item.course as string,
  userId: item.userId as string,
  group: item.group as CourseGroup,
  registrationSection: (item.registrationSection as string | null | undefined) ?? null,
  rotatingSection: (item.rotatingSection as string | null | undefined) ?? null,
  gradingSections: (item.gradingSections as string[] | undefined) ?? [],
});

export const enrollmentRef = (term: string, course: string, userId: string): ItemRef<Enrollment> => ({
  table,
  key: { courseId: courseId(term, course), userId },
  decode: decodeEnrollment,
});

export const enrollmentItem = (enrollment: Enrollment): Item => ({
  courseId: courseId(enrollment.term, enrollment.course),
  ...enrollment,
  gradingSections: [...enrollment.gradingSections],
});

export const putEnrollment = (enrollment: Enrollment): TransactItem => ({
  Put: { TableName: tableName(table), Item: enrollmentItem(enrollment) },
});

/** Everyone in a course (strongly consistent). */
export async function enrollmentsOfCourse(term: string, course: string): Promise<Enrollment[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :courseId',
    ExpressionAttributeValues: { ':courseId': courseId(term, course) },
    ConsistentRead: true,
  });
  return items.map(decodeEnrollment);
}

/** Every course a user is in (through the byUser index). */
export async function enrollmentsOfUser(userId: string): Promise<Enrollment[]> {
  const items = await queryAll({
    TableName: tableName(table),
    IndexName: 'byUser',
    KeyConditionExpression: 'userId = :userId',
    ExpressionAttributeValues: { ':userId': userId },
  });
  return items.map(decodeEnrollment);
}

export const enrollmentsTableName = () => tableName(table);
