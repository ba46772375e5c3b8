import { generatePassword, hashGeneratedPassword } from '#shared/auth/passwords.ts';
import {
  accessGroupsTableName,
  courseItemsOfGroup,
  deleteCourseMembership,
  putCourseMembership,
  staffMarker,
} from '#shared/data/access-groups.ts';
import { setCourseAccessGroup } from '#shared/data/courses.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { batchWrite } from '#shared/data/batch-write.ts';
import { inGroups } from '#shared/lists.ts';
import { credentialsTableName, passwordItem } from '#shared/data/credentials.ts';
import { enrollmentItem, enrollmentsOfCourse, enrollmentsTableName, type EnrollmentCopies } from '#shared/data/enrollments.ts';
import { enrollmentCopies } from './create-course.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import { settleCopies } from '#shared/data/settle-copies.ts';
import { termRef } from '#shared/data/terms.ts';
import { changeProfile, userItem, userRef, usersTableName } from '#shared/data/users.ts';
import type { User } from '#shared/users/user.ts';
import { planClassList, type ClassListPlan, type ClassListRow } from './class-list.ts';
import { isStaff, type Course, type Enrollment } from './course.ts';

/** The writes that put an enrollment in place, with its copies and its access-group staff marker kept in step. */
export function enrollmentWrites(course: Course, enrollment: Enrollment, copies: EnrollmentCopies) {
  const marker = staffMarker(course.accessGroup, enrollment.userId, course.term, course.course);
  return [
    { tableName: enrollmentsTableName(), request: { PutRequest: { Item: enrollmentItem(enrollment, copies) } } },
    {
      tableName: accessGroupsTableName(),
      request: isStaff(enrollment) ? { PutRequest: { Item: marker } } : { DeleteRequest: { Key: marker } },
    },
  ];
}

export async function enroll(course: Course, enrollments: readonly Enrollment[]): Promise<void> {
  const userRefs: Record<string, ItemRef<User>> = {};
  for (const enrollment of enrollments) userRefs[enrollment.userId] = userRef(enrollment.userId);
  const [users, { term }] = await Promise.all([getItems(userRefs), getItems({ term: termRef(course.term) })]);
  const written = enrollments.map((enrollment) => ({ enrollment, copies: enrollmentCopies(course, term, users[enrollment.userId]) }));
  await batchWrite(written.flatMap(({ enrollment, copies }) => enrollmentWrites(course, enrollment, copies)));
  await settleCopies(written);
}

const PARALLEL_PROFILE_CHANGES = 16;

export interface ClassListImport extends ClassListPlan {
  /** Generated passwords of the users created, to hand out once. */
  readonly passwords: { userId: string; password: string }[];
}

/**
 * Imports class-list rows into a course with batch writes: creates missing users (with generated
 * passwords), updates changed enrollments, leaves everything else alone; then changes the
 * changed profiles, with their copies on every course's enrollment items.
 */
export async function importClassList(
  course: Course,
  rows: readonly ClassListRow[],
  onProgress?: (done: number, total: number) => void,
): Promise<ClassListImport> {
  const userRefs: Record<string, ItemRef<User>> = {};
  for (const row of rows) userRefs[row.userId] = userRef(row.userId);
  const [users, enrollments, { term }] = await Promise.all([
    getItems(userRefs),
    enrollmentsOfCourse(course.term, course.course),
    getItems({ term: termRef(course.term) }),
  ]);
  const existingUsers = new Map(Object.values(users).flatMap((user) => (user ? [[user.userId, user] as const] : [])));
  const existingEnrollments = new Map(enrollments.map((enrollment) => [enrollment.userId, enrollment] as const));
  const plan = planClassList(course, rows, existingUsers, existingEnrollments);

  const passwords = plan.usersToCreate.map((user) => ({ userId: user.userId, password: generatePassword() }));
  const credentials = await Promise.all(
    passwords.map(async ({ userId, password }) => passwordItem(userId, await hashGeneratedPassword(password))),
  );
  const profiles = new Map([
    ...existingUsers,
    ...[...plan.usersToCreate, ...plan.usersToUpdate].map((user) => [user.userId, user] as const),
  ]);
  const written = plan.enrollmentsToWrite.map((enrollment) => ({
    enrollment,
    copies: enrollmentCopies(course, term, profiles.get(enrollment.userId)),
  }));
  const writes = [
    ...plan.usersToCreate.map((user) => ({ tableName: usersTableName(), request: { PutRequest: { Item: userItem(user) } } })),
    ...credentials.map((Item) => ({ tableName: credentialsTableName(), request: { PutRequest: { Item } } })),
    ...written.flatMap(({ enrollment, copies }) => enrollmentWrites(course, enrollment, copies)),
  ];
  await batchWrite(writes, { onProgress: (done) => onProgress?.(done, writes.length) });
  await inGroups(plan.usersToUpdate, PARALLEL_PROFILE_CHANGES, (user) => changeProfile(user));
  // After the profile changes: their copies were filled from what this import wrote.
  await settleCopies(written);
  return { ...plan, passwords };
}

/**
 * Moves a course to another access group: the new group's items are written first, then the
 * course switches (with its membership) in one transaction, then the old items go; a reader
 * sees the course in one group or the other, never in neither.
 */
export async function moveToAccessGroup(course: Course, accessGroup: string): Promise<void> {
  if (course.accessGroup === accessGroup) return;
  const old = await courseItemsOfGroup(course.accessGroup, course.term, course.course);
  const staff = old.filter((item) => item.member.startsWith('staff#'));
  await batchWrite(
    staff.map((item) => ({ tableName: accessGroupsTableName(), request: { PutRequest: { Item: { ...item, accessGroup } } } })),
  );
  await transactWrite([
    setCourseAccessGroup(course.term, course.course, accessGroup),
    putCourseMembership(accessGroup, course.term, course.course),
    deleteCourseMembership(course.accessGroup, course.term, course.course),
  ]);
  await batchWrite(staff.map((item) => ({ tableName: accessGroupsTableName(), request: { DeleteRequest: { Key: item } } })));
}
