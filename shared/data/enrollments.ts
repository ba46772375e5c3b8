import {
  decodeListingCopy,
  decodeMemberCopy,
  storableCopy,
  type CopyHolder,
  type ListingCopy,
  type MemberCopy,
} from './enrollment-copies.ts';
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
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
  /**
   * The item's revision as read: a new random one with every write, so that a change made from a
   * read is written only while the membership is still exactly as read (even after the member was
   * removed and enrolled again). Absent on an item written before revisions were kept, and on a
   * membership not read from the table.
   */
  readonly revision?: string | undefined;
}

export const decodeEnrollment = (item: Item): Enrollment => ({
  term: item.term as string,
  course: item.course as string,
  userId: item.userId as string,
  group: item.group as CourseGroup,
  registrationSection: (item.registrationSection as string | null | undefined) ?? null,
  rotatingSection: (item.rotatingSection as string | null | undefined) ?? null,
  gradingSections: (item.gradingSections as string[] | undefined) ?? [],
  ...(typeof item.revision === 'string' ? { revision: item.revision } : {}),
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

/**
 * Where a section stands in the gradebook's order, as a string that sorts the same way: sections
 * that are numbers first, by number (`0`, their length without leading zeros, the digits, then
 * the section itself for ties such as `07` and `7`), then every other section by its characters
 * (`1` and the section). Sections are letters, digits, `_` and `-` (course.ts), all above `#`.
 */
export function sectionPrefix(section: string): string {
  if (!/^\d+$/.test(section)) return `1${section}`;
  const digits = section.replace(/^0+(?=\d)/, '');
  return `0${String(digits.length).padStart(2, '0')}${digits}${section}`;
}

/**
 * The `bySection` index key of a student with a registration section: the section's place, then
 * the user id (after `#`, below every character of a section, so section `A` ends before `AB`).
 */
export const sectionOrder = (section: string, userId: string): string => `${sectionPrefix(section)}#${userId}`;

/** Students with a section are listed in `bySection`; anyone else's item has no `sectionOrder`. */
const sectionOrderOf = (enrollment: Enrollment): string | undefined =>
  enrollment.group === 4 && enrollment.registrationSection !== null
    ? sectionOrder(enrollment.registrationSection, enrollment.userId)
    : undefined;

export const enrollmentItem = (enrollment: Enrollment, copies: EnrollmentCopies = {}): Item => ({
  courseId: courseId(enrollment.term, enrollment.course),
  term: enrollment.term,
  course: enrollment.course,
  userId: enrollment.userId,
  group: enrollment.group,
  registrationSection: enrollment.registrationSection,
  rotatingSection: enrollment.rotatingSection,
  gradingSections: [...enrollment.gradingSections],
  revision: randomUUID(),
  ...(sectionOrderOf(enrollment) === undefined ? {} : { sectionOrder: sectionOrderOf(enrollment) }),
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

/** A student of a course's gradebook, as the `bySection` index lists them. */
export interface SectionStudent {
  readonly userId: string;
  readonly registrationSection: string;
}

/**
 * Up to `limit` students with a registration section, in the gradebook's order (`sectionOrder`),
 * after the position `after` ([section, user id]; from the start when absent), of the sections
 * named (every section when absent): one Query of the `bySection` index per section named (the
 * sections after the position's, in order, until the page is full), or one in all. Reads no more
 * than the page and, per section, one empty answer at most. The index is eventually consistent:
 * a student enrolled a moment ago may be missing for that moment.
 */
export async function studentsBySection(
  term: string,
  course: string,
  options: {
    readonly after?: readonly [string, string] | undefined;
    readonly sections?: readonly string[] | undefined;
    readonly limit: number;
  },
): Promise<SectionStudent[]> {
  const { after, limit } = options;
  const afterKey = after ? sectionOrder(after[0], after[1]) : undefined;
  const ranges: { low?: string; high?: string }[] = [];
  if (options.sections === undefined) ranges.push(afterKey === undefined ? {} : { low: afterKey });
  else {
    const prefixes = [...new Set(options.sections.map(sectionPrefix))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const prefix of prefixes) {
      const low = `${prefix}#`;
      const high = `${prefix}$`;
      if (afterKey !== undefined && afterKey >= high) continue;
      // A key after the position's: no user id holds a space, so none is between the two.
      ranges.push({ low: afterKey !== undefined && afterKey >= low ? `${afterKey} ` : low, high });
    }
  }
  const students: SectionStudent[] = [];
  for (const range of ranges) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName: tableName(table),
          IndexName: 'bySection',
          KeyConditionExpression:
            'courseId = :courseId' +
            (range.high !== undefined
              ? ' AND sectionOrder BETWEEN :low AND :high'
              : range.low !== undefined
                ? ' AND sectionOrder > :low'
                : ''),
          ExpressionAttributeValues: {
            ':courseId': courseId(term, course),
            ...(range.low !== undefined ? { ':low': range.low } : {}),
            ...(range.high !== undefined ? { ':high': range.high } : {}),
          },
          ProjectionExpression: 'userId, registrationSection',
          Limit: limit - students.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        students.push({ userId: item.userId as string, registrationSection: item.registrationSection as string });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && students.length < limit);
    if (students.length >= limit) break;
  }
  return students;
}

/**
 * The write of one member's change, conditional on the whole membership as read: absent (a new
 * member) or at the revision read (`before`), so that a change made from an earlier read never
 * undoes one written since; the item written gets a new revision.
 */
export function writeMember(
  before: Pick<Enrollment, 'revision'> | undefined,
  after: Enrollment | null,
  key: Pick<Enrollment, 'term' | 'course' | 'userId'>,
  copies: EnrollmentCopies = {},
): TransactItem {
  const TableName = tableName(table);
  const condition = membershipAsRead(before);
  return after
    ? { Put: { TableName, Item: enrollmentItem(after, copies), ...condition } }
    : { Delete: { TableName, Key: { courseId: courseId(key.term, key.course), userId: key.userId }, ...condition } };
}

/** Passes while the membership is as read: absent, at the revision read, or (an item older than revisions) still without one. */
function membershipAsRead(before: Pick<Enrollment, 'revision'> | undefined) {
  if (!before) return { ConditionExpression: 'attribute_not_exists(userId)' };
  if (before.revision === undefined) return { ConditionExpression: 'attribute_exists(userId) AND attribute_not_exists(revision)' };
  return {
    ConditionExpression: 'revision = :revision',
    ExpressionAttributeValues: { ':revision': before.revision },
  };
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
