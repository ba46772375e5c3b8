import {
  decodeListingCopy,
  decodeMemberCopy,
  storableCopy,
  type CopyHolder,
  type ListingCopy,
  type MemberCopy,
} from './enrollment-copies.ts';
import { courseId } from './keys.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.enrollments;

/** Per-course groups, numbered as the reference numbers them: instructor, full access grader, limited access grader, student. */
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

/** Copies an enrollment item carries of its member's profile and its course and term (enrollment-copies.ts). */
export interface EnrollmentCopies {
  readonly member?: MemberCopy | undefined;
  readonly listing?: ListingCopy | undefined;
}

export interface CopiedEnrollment extends EnrollmentCopies {
  readonly enrollment: Enrollment;
}

const decodeCopiedEnrollment = (item: Item): CopiedEnrollment => ({
  enrollment: decodeEnrollment(item),
  member: decodeMemberCopy(item.memberCopy),
  listing: decodeListingCopy(item.listingCopy),
});

export const enrollmentItem = (enrollment: Enrollment, copies: EnrollmentCopies = {}): Item => ({
  courseId: courseId(enrollment.term, enrollment.course),
  term: enrollment.term,
  course: enrollment.course,
  userId: enrollment.userId,
  group: enrollment.group,
  registrationSection: enrollment.registrationSection,
  rotatingSection: enrollment.rotatingSection,
  gradingSections: [...enrollment.gradingSections],
  ...(copies.member ? { memberCopy: storableCopy(copies.member) } : {}),
  ...(copies.listing ? { listingCopy: storableCopy(copies.listing) } : {}),
});

export const putEnrollment = (enrollment: Enrollment, copies: EnrollmentCopies = {}): TransactItem => ({
  Put: { TableName: tableName(table), Item: enrollmentItem(enrollment, copies) },
});

export const copyHolder = (enrollment: Pick<Enrollment, 'term' | 'course' | 'userId'>): CopyHolder => ({
  tableName: tableName(table),
  key: { courseId: courseId(enrollment.term, enrollment.course), userId: enrollment.userId },
});

/** Everyone in a course with the copies their items carry (strongly consistent). */
export async function copiedEnrollmentsOfCourse(term: string, course: string): Promise<CopiedEnrollment[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :courseId',
    ExpressionAttributeValues: { ':courseId': courseId(term, course) },
    ConsistentRead: true,
  });
  return items.map(decodeCopiedEnrollment);
}

/** Everyone in a course (strongly consistent). */
export async function enrollmentsOfCourse(term: string, course: string): Promise<Enrollment[]> {
  return (await copiedEnrollmentsOfCourse(term, course)).map(({ enrollment }) => enrollment);
}

/** Every course a user is in with the copies their items carry (through the byUser index). */
export async function copiedEnrollmentsOfUser(userId: string): Promise<CopiedEnrollment[]> {
  const items = await queryAll({
    TableName: tableName(table),
    IndexName: 'byUser',
    KeyConditionExpression: 'userId = :userId',
    ExpressionAttributeValues: { ':userId': userId },
  });
  return items.map(decodeCopiedEnrollment);
}

/** Every course a user is in (through the byUser index). */
export async function enrollmentsOfUser(userId: string): Promise<Enrollment[]> {
  return (await copiedEnrollmentsOfUser(userId)).map(({ enrollment }) => enrollment);
}

export const enrollmentsTableName = () => tableName(table);

/**
 * The write of one member's change, conditional on the member as read: absent (a new member) or
 * in the group read (`before`), so two changes of one member never both apply from the same read.
 */
export function writeMember(
  before: Pick<Enrollment, 'group'> | undefined,
  after: Enrollment | null,
  key: Pick<Enrollment, 'term' | 'course' | 'userId'>,
  copies: EnrollmentCopies = {},
): TransactItem {
  const condition = before
    ? {
        ConditionExpression: '#group = :group',
        ExpressionAttributeNames: { '#group': 'group' },
        ExpressionAttributeValues: { ':group': before.group },
      }
    : { ConditionExpression: 'attribute_not_exists(userId)' };
  const TableName = tableName(table);
  return after
    ? { Put: { TableName, Item: enrollmentItem(after, copies), ...condition } }
    : { Delete: { TableName, Key: { courseId: courseId(key.term, key.course), userId: key.userId }, ...condition } };
}

/** Passes while the user is an instructor of the course (a change that removes another instructor checks it). */
export const stillInstructor = (term: string, course: string, userId: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(table),
    Key: { courseId: courseId(term, course), userId },
    ConditionExpression: '#group = :instructor',
    ExpressionAttributeNames: { '#group': 'group' },
    ExpressionAttributeValues: { ':instructor': 1 },
  },
});
