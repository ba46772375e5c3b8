import { generatePassword, hashGeneratedPassword } from '#shared/auth/passwords.ts';
import {
  accessGroupsTableName,
  courseItemsOfGroup,
  deleteCourseMembership,
  putCourseMembership,
  staffMarker,
  writeStaffMarker,
} from '#shared/data/access-groups.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { profileChangeEntries } from '#shared/users/accounts.ts';
import { setCourseAccessGroup } from '#shared/data/courses.ts';
import { failedConditions, transactWrite, type TransactItem } from '#shared/data/transactions.ts';
import { batchWrite } from '#shared/data/batch-write.ts';
import { inGroups } from '#shared/lists.ts';
import { putPassword } from '#shared/data/credentials.ts';
import {
  enrollmentItem,
  enrollmentRef,
  enrollmentsOfCourse,
  enrollmentsTableName,
  stillInstructor,
  writeMember,
  type EnrollmentCopies,
} from '#shared/data/enrollments.ts';
import { enrollmentCopies } from './create-course.ts';
import { getItems, type ItemRef, type LoadedItems } from '#shared/data/items.ts';
import { settleCopies } from '#shared/data/settle-copies.ts';
import { termRef } from '#shared/data/terms.ts';
import { changeProfile, userItem, userRef, usersTableName } from '#shared/data/users.ts';
import type { User } from '#shared/users/user.ts';
import { planClassList, readClassList, type ClassList, type MemberChange, type RejectedRow } from './class-list.ts';
import { courseId, courseUsers, isStaff, type Course, type Enrollment, type PersonName, type UserRecord } from './course.ts';
import { lastInstructor, memberChanged, userNotInCourse } from './failures.ts';
import {
  droppedMember,
  memberAction,
  memberAfter,
  memberDiff,
  newAccount,
  removesInstructor,
  sameMember,
  stayingInstructor,
  type MemberFields,
} from './roster.ts';

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
const PARALLEL_TRANSACTIONS = 16;
/** A transaction holds at most 100 items. */
const MAX_TRANSACTION_ITEMS = 100;

/** Who made a change, as the audit trail names them: a user id, or `(command line)` for the operator's command line. */
export type Actor = string;

/** What enrolling or dropping one member reads (with the token check): the account, the membership and the term. */
const memberRefs = (course: Pick<Course, 'term' | 'course'>, userId: string) => ({
  account: userRef(userId),
  membership: enrollmentRef(course.term, course.course, userId),
  term: termRef(course.term),
});

export const memberReads = (course: Pick<Course, 'term' | 'course'>, userId: string): Partial<ReturnType<typeof memberRefs>> =>
  memberRefs(course, userId);

export type MemberItems = Partial<LoadedItems<ReturnType<typeof memberRefs>>>;

const loadMember = async (course: Course, userId: string, loaded: MemberItems | undefined) => {
  return loaded && Object.hasOwn(loaded, 'membership') ? loaded : await getItems(memberRefs(course, userId));
};

/** A member as the users list shows them. */
const listed = (person: PersonName, enrollment: Enrollment) => courseUsers([{ person, enrollment }])[0] as UserRecord;

/**
 * The transaction items of one member's change: the enrollment (with its copies) and its
 * access-group staff marker, the audit entry, the account when it is created (with its password
 * and its own audit entry), and, when the change takes an instructor away, the check that
 * `keptInstructor` still is one.
 */
function memberChangeItems(
  course: Course,
  change: { before: Enrollment | undefined; after: Enrollment | null; copies: EnrollmentCopies },
  actor: Actor,
  extra: { account?: { user: User; passwordHash: string }; keptInstructor?: string | undefined } = {},
  at = new Date(),
): TransactItem[] {
  const { before, after } = change;
  const key = (after ?? before) as Enrollment;
  const items: TransactItem[] = [
    writeMember(before, after, key, change.copies),
    writeStaffMarker(course.accessGroup, key.userId, course.term, course.course, after !== null && isStaff(after)),
    auditEntry(
      { courseId: courseId(course.term, course.course) },
      { actor, action: memberAction(before, after), target: key.userId, ...memberDiff(before, after) },
      at,
    ),
  ];
  if (extra.account) {
    const { user, passwordHash } = extra.account;
    items.push(
      { Put: { TableName: usersTableName(), Item: userItem(user), ConditionExpression: 'attribute_not_exists(userId)' } },
      putPassword(user.userId, passwordHash),
      auditEntry(
        { userId: user.userId },
        {
          actor,
          action: 'user.created',
          target: user.userId,
          after: { first_name: user.givenName, last_name: user.familyName, email: user.email, level: user.accessLevel },
        },
        at,
      ),
    );
  }
  if (removesInstructor(before, after)) {
    if (extra.keptInstructor === undefined) throw lastInstructor({ user_id: key.userId });
    items.push(stillInstructor(course.term, course.course, extra.keptInstructor));
  }
  return items;
}

/** An instructor who stays when `userId` stops being one (a query, only for such a change). */
async function otherInstructor(course: Course, userId: string): Promise<string | undefined> {
  return stayingInstructor(await enrollmentsOfCourse(course.term, course.course), new Set([userId]));
}

/** Writes one member's change; a failed condition says which rule a concurrent change broke. */
async function writeMemberChange(items: TransactItem[], userId: string): Promise<void> {
  try {
    await transactWrite(items);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.length === 0) throw error;
    const check = items.findIndex((item) => item.ConditionCheck !== undefined);
    throw failed.includes(check) ? lastInstructor({ user_id: userId }) : memberChanged({ user_id: userId });
  }
}

/**
 * Enrols a user in a course or changes their membership (`PUT …/users/{user_id}`): fields left out
 * keep their value. A user id without an account gets one from first_name, last_name and email,
 * with a generated password answered once; an existing account's names and e-mail are left as
 * they are (they are the user's, not the course's). Nothing changes when nothing differs.
 */
export async function putMember(
  course: Course,
  userId: string,
  fields: MemberFields,
  actor: Actor,
  loaded?: MemberItems,
): Promise<ReturnType<typeof listed> & { password: string | null }> {
  const { account, membership, term } = await loadMember(course, userId, loaded);
  const after = memberAfter(course, userId, fields, membership);
  const user = account ?? newAccount(userId, fields);
  if (account && membership && sameMember(membership, after)) return { ...listed(user, after), password: null };

  const password = account ? null : generatePassword();
  const copies = enrollmentCopies(course, term, user);
  const keptInstructor = removesInstructor(membership, after) ? await otherInstructor(course, userId) : undefined;
  const items = memberChangeItems(course, { before: membership, after, copies }, actor, {
    ...(password === null ? {} : { account: { user, passwordHash: await hashGeneratedPassword(password) } }),
    keptInstructor,
  });
  await writeMemberChange(items, userId);
  await settleCopies([{ enrollment: after, copies }]);
  return { ...listed(user, after), password };
}

/**
 * Drops a member (`DELETE …/users/{user_id}`): a student stays, with no sections, and keeps their
 * submissions and grades; staff lose their role. The last instructor stays.
 */
export async function dropMember(
  course: Course,
  userId: string,
  actor: Actor,
  loaded?: MemberItems,
): Promise<{ user_id: string; member: ReturnType<typeof listed> | null }> {
  const { account, membership, term } = await loadMember(course, userId, loaded);
  if (!membership || !account) throw userNotInCourse({ user_id: userId });
  const after = droppedMember(membership);
  if (after && sameMember(membership, after)) return { user_id: userId, member: listed(account, after) };
  const keptInstructor = removesInstructor(membership, after) ? await otherInstructor(course, userId) : undefined;
  const copies = after ? enrollmentCopies(course, term, account) : {};
  await writeMemberChange(memberChangeItems(course, { before: membership, after, copies }, actor, { keptInstructor }), userId);
  if (after) await settleCopies([{ enrollment: after, copies }]);
  return { user_id: userId, member: after && listed(account, after) };
}

/** What a class-list import did (or, for a dry run, would do). */
export interface ClassListReport {
  readonly dry_run: boolean;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly dropped: number;
  readonly rejected: RejectedRow[];
  /** The accounts created, each with its generated password, answered this once (null in a dry run). */
  readonly new_accounts: { user_id: string; password: string | null }[];
}

export interface ImportOptions {
  readonly actor: Actor;
  readonly dryRun?: boolean;
  readonly dropMissing?: boolean;
  /** Members keep the registration section they have (an LMS roster sync): a row's applies to those without one. */
  readonly keepSections?: boolean;
  /** Members keep the role they have (an LMS roster sync): a row's role applies to those new to the course. */
  readonly keepRoles?: boolean;
  /** The operator's command line also changes existing accounts' names and e-mails to the list's. */
  readonly updateProfiles?: boolean;
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Imports a class list into a course: reads the accounts and the roster in bulk, plans, then
 * writes each member's change atomically with its audit entry, many members a transaction. A
 * transaction a concurrent change refuses rejects its rows (importing again picks them up).
 */
export async function importClassList(
  course: Course,
  list: ClassList,
  options: ImportOptions,
): Promise<ClassListReport & { profilesUpdated: number }> {
  const userRefs: Record<string, ItemRef<User>> = {};
  for (const row of list.rows) userRefs[row.userId] = userRef(row.userId);
  const [users, enrollments, { term }] = await Promise.all([
    getItems(userRefs),
    enrollmentsOfCourse(course.term, course.course),
    getItems({ term: termRef(course.term) }),
  ]);
  const existingUsers = new Map(Object.values(users).flatMap((user) => (user ? [[user.userId, user] as const] : [])));
  const existingEnrollments = new Map(enrollments.map((enrollment) => [enrollment.userId, enrollment] as const));
  const plan = planClassList(course, list, existingUsers, existingEnrollments, {
    dropMissing: options.dropMissing ?? false,
    keepSections: options.keepSections ?? false,
    keepRoles: options.keepRoles ?? false,
  });
  const rejected = [...list.rejected, ...plan.refused];
  // The counts are picked, not spread: a dry run passes the whole plan, whose other fields are no part of the answer.
  const report = (
    { created, updated, dropped }: Pick<ClassListReport, 'created' | 'updated' | 'dropped'>,
    accounts: ClassListReport['new_accounts'],
  ) => ({
    dry_run: options.dryRun ?? false,
    created,
    updated,
    dropped,
    unchanged: plan.unchanged,
    rejected: rejected.sort((a, b) => a.line - b.line),
    new_accounts: accounts,
    profilesUpdated: options.updateProfiles && !options.dryRun ? plan.usersToUpdate.length : 0,
  });
  if (options.dryRun)
    return report(
      plan,
      plan.usersToCreate.map((user) => ({ user_id: user.userId, password: null })),
    );

  const created = new Map(plan.usersToCreate.map((user) => [user.userId, user] as const));
  const passwords = new Map(plan.usersToCreate.map((user) => [user.userId, generatePassword()] as const));
  const hashes = new Map(
    await Promise.all([...passwords].map(async ([userId, password]) => [userId, await hashGeneratedPassword(password)] as const)),
  );
  const profiles = new Map([
    ...existingUsers,
    ...created,
    ...(options.updateProfiles ? plan.usersToUpdate.map((u) => [u.userId, u] as const) : []),
  ]);
  const at = new Date();
  const members = plan.changes.map((change) => {
    const userId = (change.after ?? change.before)?.userId ?? '';
    const copies = change.after ? enrollmentCopies(course, term, profiles.get(userId)) : {};
    const newUser = created.get(userId);
    const hash = hashes.get(userId);
    const account = newUser && hash !== undefined ? { user: newUser, passwordHash: hash } : undefined;
    const items = memberChangeItems(course, { ...change, copies }, options.actor, { account, keptInstructor: plan.keptInstructor }, at);
    return { change, copies, items };
  });
  const transactions: (typeof members)[] = [];
  for (const member of members) {
    const last = transactions.at(-1);
    if (last && last.reduce((sum, { items }) => sum + items.length, 0) + member.items.length <= MAX_TRANSACTION_ITEMS) last.push(member);
    else transactions.push([member]);
  }
  const applied: typeof members = [];
  let done = 0;
  await inGroups(transactions, PARALLEL_TRANSACTIONS, async (group) => {
    try {
      await transactWrite(group.flatMap(({ items }) => items));
      applied.push(...group);
    } catch (error) {
      if (failedConditions(error).length === 0) throw error;
      for (const { change } of group) {
        rejected.push({
          line: change.line ?? 0,
          reason: `${(change.after ?? change.before)?.userId} changed while the list was imported; import it again.`,
        });
      }
    }
    options.onProgress?.((done += group.length), members.length);
  });
  if (options.updateProfiles) {
    await inGroups(plan.usersToUpdate, PARALLEL_PROFILE_CHANGES, (user) => changeProfile(user, profileChangeEntries(options.actor, user)));
  }
  // After the profile changes: their copies were filled from what this import wrote.
  await settleCopies(applied.flatMap(({ change, copies }) => (change.after ? [{ enrollment: change.after, copies }] : [])));
  const count = (test: (change: MemberChange) => boolean) => applied.filter(({ change }) => test(change)).length;
  return report(
    {
      created: count(({ before }) => !before),
      updated: count(({ before, line }) => before !== undefined && line !== null),
      dropped: count(({ line }) => line === null),
    },
    applied.flatMap(({ change }) => {
      const userId = change.after?.userId ?? '';
      const password = passwords.get(userId);
      return change.after && password !== undefined ? [{ user_id: userId, password }] : [];
    }),
  );
}

/**
 * Moves a course to another access group: the new group's items are written first, then the
 * course switches (with its membership and `alongside`, its audit entry) in one transaction,
 * provided it is still in the group it was read in, then the old items go; a reader sees the
 * course in one group or the other, never in neither. False when the course was no longer in the
 * group read (nothing switched; the new group's copies stay, and grant nothing while the course
 * is not in that group, since every read across a group checks the course's own group).
 */
export async function moveToAccessGroup(course: Course, accessGroup: string, alongside: readonly TransactItem[] = []): Promise<boolean> {
  if (course.accessGroup === accessGroup) return true;
  const old = await courseItemsOfGroup(course.accessGroup, course.term, course.course);
  const staff = old.filter((item) => item.member.startsWith('staff#'));
  await batchWrite(
    staff.map((item) => ({ tableName: accessGroupsTableName(), request: { PutRequest: { Item: { ...item, accessGroup } } } })),
  );
  try {
    await transactWrite([
      setCourseAccessGroup(course.term, course.course, accessGroup, course.accessGroup),
      putCourseMembership(accessGroup, course.term, course.course),
      deleteCourseMembership(course.accessGroup, course.term, course.course),
      ...alongside,
    ]);
  } catch (error) {
    if (failedConditions(error).includes(0)) return false;
    throw error;
  }
  await batchWrite(staff.map((item) => ({ tableName: accessGroupsTableName(), request: { DeleteRequest: { Key: item } } })));
  return true;
}

/** A class list as sent over HTTP (`POST …/users/import`, whose input refuses none): read, then imported. */
export async function importClassListText(course: Course, text: string, options: ImportOptions): Promise<ClassListReport> {
  const { profilesUpdated: _, ...report } = await importClassList(course, readClassList(text), options);
  return report;
}

/**
 * The transaction items that enrol a user with an account as a new member (an LTI launch into a
 * linked course): written only while the user is not a member (a membership written meanwhile
 * wins, whatever its role), with its copies, staff marker and audit entry. `settle` brings the
 * copies up to date once the transaction is written.
 */
export function newMemberItems(
  course: Course,
  term: Parameters<typeof enrollmentCopies>[1],
  user: User,
  enrollment: Enrollment,
  actor: Actor,
  at = new Date(),
): { items: TransactItem[]; settle: () => Promise<unknown> } {
  const copies = enrollmentCopies(course, term, user);
  return {
    items: memberChangeItems(course, { before: undefined, after: enrollment, copies }, actor, {}, at),
    settle: () => settleCopies([{ enrollment, copies }]),
  };
}
