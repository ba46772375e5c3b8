import { parse } from 'csv-parse/sync';
import type { Refusal } from '#shared/errors.ts';
import { isValidUserId, type User } from '#shared/users/user.ts';
import { courseGroups, groupLabels, isValidSection, type CourseGroup, type Enrollment } from './course.ts';
import { classListHeader, classListTooLong, classListUnreadable } from './failures.ts';
import { accountFieldProblem, droppedMember, removesInstructor, sameMember, stayingInstructor } from './roster.ts';

export const CLASS_LIST_COLUMNS = ['user_id', 'first_name', 'last_name', 'email', 'registration_section', 'group'] as const;

/** The most rows one class list may hold (one request's work stays well inside a Lambda's time). */
export const MAX_CLASS_LIST_ROWS = 5000;

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
 * The records of a CSV text, each with the line it starts on; empty lines are skipped, a byte-order
 * mark dropped. `unreadable`: the refusal of a text that is not CSV, given why.
 */
export function csvRecords(
  text: string,
  unreadable: (reason: string) => Refusal = (reason) => classListUnreadable({ reason }),
): { line: number; fields: string[] }[] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let parsed: { record: string[]; info: { bytes: number } }[];
  try {
    parsed = parse(input, {
      skip_empty_lines: true,
      relax_column_count: true,
      relax_quotes: true,
      info: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      max_record_size: 64 * 1024,
    }) as unknown as { record: string[]; info: { bytes: number } }[];
  } catch (error) {
    throw unreadable((error as Error).message.slice(0, 300));
  }
  // csv-parse reports where each record ends in bytes; lines are counted here from the text itself.
  const bytes = Buffer.from(input, 'utf8');
  let offset = 0;
  let line = 1;
  return parsed.map(({ record, info }) => {
    while (offset < info.bytes && (bytes[offset] === 0x0a || bytes[offset] === 0x0d)) {
      if (bytes[offset] === 0x0a || bytes[offset + 1] !== 0x0a) line++;
      offset++;
    }
    const start = line;
    for (; offset < info.bytes; offset++) {
      if (bytes[offset] === 0x0a || (bytes[offset] === 0x0d && bytes[offset + 1] !== 0x0a)) line++;
    }
    return { line: start, fields: record };
  });
}

export interface ClassList {
  readonly rows: ClassListRow[];
  readonly rejected: RejectedRow[];
  /** Every user id a row names, rejected rows' too (a drop of students missing from the list spares them). */
  readonly named: ReadonlySet<string>;
}

/**
 * Reads a class list (`user_id, first_name, last_name, email, registration_section, group`, with a
 * header row, columns in any order). Every row is checked; bad rows are rejected with their line
 * number and reason, the rest are returned. A file that is not CSV, lacks a column or holds more
 * than MAX_CLASS_LIST_ROWS rows is refused as a whole.
 */
export function readClassList(text: string): ClassList {
  const [header, ...records] = csvRecords(text);
  if (!header) throw classListHeader({ columns: CLASS_LIST_COLUMNS.join(', ') });
  const names = header.fields.map((name) => name.trim().toLowerCase());
  const missing = CLASS_LIST_COLUMNS.filter((column) => !names.includes(column));
  if (missing.length > 0) throw classListHeader({ columns: missing.join(', ') });
  if (records.length > MAX_CLASS_LIST_ROWS) throw classListTooLong({ limit: MAX_CLASS_LIST_ROWS });
  const column = Object.fromEntries(CLASS_LIST_COLUMNS.map((name) => [name, names.indexOf(name)])) as Record<
    (typeof CLASS_LIST_COLUMNS)[number],
    number
  >;

  const rows: ClassListRow[] = [];
  const rejected: RejectedRow[] = [];
  const seen = new Set<string>();
  const named = new Set<string>();
  for (const { line, fields } of records) {
    const value = (name: keyof typeof column) => (fields[column[name]] ?? '').trim();
    const reject = (reason: string) => rejected.push({ line, reason });
    const userId = value('user_id');
    if (isValidUserId(userId)) named.add(userId);
    const group = parseGroup(value('group'));
    const section = value('registration_section');
    const problem = (['first_name', 'last_name', 'email'] as const)
      .map((field) => [field, accountFieldProblem(field, value(field))] as const)
      .find(([, found]) => found !== undefined);
    if (fields.length !== names.length) reject(`Expected ${names.length} fields, found ${fields.length}.`);
    else if (!isValidUserId(userId)) reject(`Invalid user id "${userId.slice(0, 80)}".`);
    else if (seen.has(userId)) reject(`User ${userId} appears more than once; the first row counts.`);
    else if (problem) reject(`The ${problem[0]} ${problem[1]}.`);
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
  return { rows, rejected, named };
}

/** One member's change: before (none: new to the course) and after (null: no longer a member). */
export interface MemberChange {
  readonly line: number | null;
  readonly before: Enrollment | undefined;
  readonly after: Enrollment | null;
}

export interface ClassListPlan {
  readonly usersToCreate: User[];
  /** Existing users whose name or e-mail the list changes (applied by the operator's command line only). */
  readonly usersToUpdate: User[];
  readonly changes: MemberChange[];
  /** Rows the plan itself refuses (the course would lose its last instructor). */
  readonly refused: RejectedRow[];
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly dropped: number;
  /** An instructor the plan keeps, which its changes that remove instructors check is still one. */
  readonly keptInstructor: string | undefined;
}

/**
 * What importing the rows into a course changes: new users (access level user), changed names or
 * e-mails, new or changed enrollments; with `dropMissing`, students with a section who are not in
 * the list are dropped (staff are left alone). Rotating and grading sections of existing
 * enrollments are kept, and with `keepSections` registration sections too (the row's applies to a
 * member without one), with `keepRoles` members' roles (the row's applies to those new to the course). Importing the same list twice changes nothing the second time.
 */
export function planClassList(
  course: { term: string; course: string },
  list: Pick<ClassList, 'rows'> & Partial<Pick<ClassList, 'named'>>,
  existingUsers: ReadonlyMap<string, User>,
  existingEnrollments: ReadonlyMap<string, Enrollment>,
  options: { dropMissing?: boolean; keepSections?: boolean; keepRoles?: boolean } = {},
): ClassListPlan {
  const usersToCreate: User[] = [];
  const usersToUpdate: User[] = [];
  const changes: MemberChange[] = [];
  let unchanged = 0;
  for (const row of list.rows) {
    const user = existingUsers.get(row.userId);
    const profile = { givenName: row.givenName, familyName: row.familyName, email: row.email };
    if (!user) usersToCreate.push({ userId: row.userId, ...profile, accessLevel: 'user' });
    else if (user.givenName !== row.givenName || user.familyName !== row.familyName || user.email !== row.email) {
      // Whether the account is disabled is no business of a class list: the change leaves it as it is.
      usersToUpdate.push({ userId: user.userId, accessLevel: user.accessLevel, ...profile });
    }
    const before = existingEnrollments.get(row.userId);
    // A roster from the LMS brings members in; an existing member's role here is the instructor's to set.
    const group = (options.keepRoles ? before?.group : undefined) ?? row.group;
    const grader = group === courseGroups.fullAccessGrader || group === courseGroups.limitedAccessGrader;
    const after: Enrollment = {
      term: course.term,
      course: course.course,
      userId: row.userId,
      group,
      // The row's section is for the row's role: a member who keeps another role keeps their section too.
      registrationSection:
        before && group !== row.group
          ? before.registrationSection
          : ((options.keepSections ? before?.registrationSection : null) ?? row.registrationSection),
      rotatingSection: before?.rotatingSection ?? null,
      gradingSections: grader ? (before?.gradingSections ?? []) : [],
    };
    if (before && sameMember(before, after)) unchanged++;
    else changes.push({ line: row.line, before, after });
  }
  if (options.dropMissing) {
    const listed = list.named ?? new Set(list.rows.map((row) => row.userId));
    for (const enrollment of existingEnrollments.values()) {
      if (enrollment.group !== courseGroups.student || enrollment.registrationSection === null || listed.has(enrollment.userId)) continue;
      changes.push({ line: null, before: enrollment, after: droppedMember(enrollment) });
    }
  }
  // The course keeps an instructor: if the list would remove every one, those rows are refused.
  // Only an instructor already in place counts: its check runs in the same transactions as the removals.
  const leaving = new Set(
    changes.filter(({ before, after }) => removesInstructor(before, after)).map(({ before }) => before?.userId ?? ''),
  );
  const keptInstructor = stayingInstructor([...existingEnrollments.values()], leaving);
  const refused: RejectedRow[] = [];
  const kept = changes.filter((change) => {
    if (keptInstructor !== undefined || !removesInstructor(change.before, change.after)) return true;
    refused.push({ line: change.line ?? 0, reason: `${change.before?.userId} is the last instructor of the course; it must keep one.` });
    return false;
  });
  const count = (test: (change: MemberChange) => boolean) => kept.filter(test).length;
  return {
    usersToCreate,
    usersToUpdate,
    changes: kept,
    refused,
    created: count(({ before }) => !before),
    updated: count(({ before, line }) => before !== undefined && line !== null),
    unchanged,
    dropped: count(({ line }) => line === null),
    keptInstructor,
  };
}
