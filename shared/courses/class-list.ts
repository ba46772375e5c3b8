import { isValidUserId, type User } from '#shared/users/user.ts';
import { groupLabels, isValidSection, type CourseGroup, type Enrollment } from './course.ts';
import { parseCsv } from './csv.ts';

export const CLASS_LIST_COLUMNS = ['user_id', 'first_name', 'last_name', 'email', 'registration_section', 'group'] as const;

export interface ClassListRow {
  readonly line: number;
  readonly userId: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
  readonly registrationSection: string | null;
  readonly group: CourseGroup;
}

export interface RejectedRow {
  readonly line: number;
  readonly reason: string;
}

const GROUP_NAMES: Record<string, CourseGroup> = {
  instructor: 1,
  'full access grader': 2,
  'limited access grader': 3,
  student: 4,
  ...Object.fromEntries(Object.entries(groupLabels).map(([group, label]) => [label.toLowerCase(), Number(group) as CourseGroup])),
};

function parseGroup(value: string): CourseGroup | undefined {
  if (/^[1-4]$/.test(value)) return Number(value) as CourseGroup;
  const name = value.toLowerCase();
  return Object.hasOwn(GROUP_NAMES, name) ? GROUP_NAMES[name] : undefined;
}

/**
 * Reads a class list (`user_id, first_name, last_name, email, registration_section, group`, with a
 * header row, columns in any order). Every row is checked; bad rows are rejected with their line
 * number and reason, the rest are returned. A missing column rejects the whole file.
 */
export function readClassList(text: string): { rows: ClassListRow[]; rejected: RejectedRow[] } {
  const [header, ...records] = parseCsv(text);
  if (!header) return { rows: [], rejected: [{ line: 1, reason: 'The file is empty; it needs a header row.' }] };
  const names = header.fields.map((name) => name.trim().toLowerCase());
  const missing = CLASS_LIST_COLUMNS.filter((column) => !names.includes(column));
  if (missing.length > 0) {
    return { rows: [], rejected: [{ line: header.line, reason: `The header lacks the column(s) ${missing.join(', ')}.` }] };
  }
  const column = Object.fromEntries(CLASS_LIST_COLUMNS.map((name) => [name, names.indexOf(name)])) as Record<
    (typeof CLASS_LIST_COLUMNS)[number],
    number
  >;

  const rows: ClassListRow[] = [];
  const rejected: RejectedRow[] = [];
  const seen = new Set<string>();
  for (const { line, fields } of records) {
    const value = (name: keyof typeof column) => (fields[column[name]] ?? '').trim();
    const reject = (reason: string) => rejected.push({ line, reason });
    const userId = value('user_id');
    const group = parseGroup(value('group'));
    const section = value('registration_section');
    if (fields.length !== names.length) reject(`Expected ${names.length} fields, found ${fields.length}.`);
    else if (!isValidUserId(userId)) reject(`Invalid user id "${userId.slice(0, 80)}".`);
    else if (seen.has(userId)) reject(`User ${userId} appears more than once; the first row counts.`);
    else if (!value('first_name') || !value('last_name')) reject('First and last name are required.');
    else if (value('first_name').length > 100 || value('last_name').length > 100) reject('Names are at most 100 characters.');
    else if (!/^[^\s@]+@[^\s@]+$/.test(value('email')) || value('email').length > 254) reject('Invalid e-mail address.');
    else if (section && !isValidSection(section)) reject(`Invalid registration section "${section.slice(0, 40)}".`);
    else if (!group)
      reject(`Invalid group "${value('group').slice(0, 40)}": use 1–4 or instructor, full access grader, limited access grader, student.`);
    else {
      seen.add(userId);
      rows.push({
        line,
        userId,
        givenName: value('first_name'),
        familyName: value('last_name'),
        email: value('email'),
        registrationSection: section || null,
        group,
      });
    }
  }
  return { rows, rejected };
}

export interface ClassListPlan {
  readonly usersToCreate: User[];
  readonly usersToUpdate: User[];
  readonly enrollmentsToWrite: Enrollment[];
  readonly unchanged: number;
}

/**
 * What importing the rows into a course changes: new users (access level user), changed names or
 * e-mails, new or changed enrollments. Rotating and grading sections of existing enrollments are
 * kept. Importing the same list twice changes nothing the second time.
 */
export function planClassList(
  course: { term: string; course: string },
  rows: readonly ClassListRow[],
  existingUsers: ReadonlyMap<string, User>,
  existingEnrollments: ReadonlyMap<string, Enrollment>,
): ClassListPlan {
  const usersToCreate: User[] = [];
  const usersToUpdate: User[] = [];
  const enrollmentsToWrite: Enrollment[] = [];
  let unchanged = 0;
  for (const row of rows) {
    const user = existingUsers.get(row.userId);
    const profile = { givenName: row.givenName, familyName: row.familyName, email: row.email };
    if (!user) usersToCreate.push({ userId: row.userId, ...profile, accessLevel: 'user' });
    else if (user.givenName !== row.givenName || user.familyName !== row.familyName || user.email !== row.email) {
      usersToUpdate.push({ ...user, ...profile });
    }
    const enrollment = existingEnrollments.get(row.userId);
    if (enrollment && enrollment.group === row.group && enrollment.registrationSection === row.registrationSection) {
      if (user && !usersToUpdate.some((updated) => updated.userId === row.userId)) unchanged++;
      continue;
    }
    enrollmentsToWrite.push({
      term: course.term,
      course: course.course,
      userId: row.userId,
      group: row.group,
      registrationSection: row.registrationSection,
      rotatingSection: enrollment?.rotatingSection ?? null,
      gradingSections: enrollment?.gradingSections ?? [],
    });
  }
  return { usersToCreate, usersToUpdate, enrollmentsToWrite, unchanged };
}
