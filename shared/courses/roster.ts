/** The pure rules of a course's roster: who a member becomes on enrolment, update and drop. */
import { accountFieldProblem } from '#shared/users/account-fields.ts';
import { isValidUserId, type User } from '#shared/users/user.ts';
import { courseGroups, groupLabels, isStaff, isValidSection, type CourseGroup, type Enrollment } from './course.ts';
import {
  accountFieldsMissing,
  badAccountField,
  badGroup,
  badSection,
  gradingSectionsOfGraders,
  groupRequired,
  tooManyGradingSections,
} from './failures.ts';

export const MAX_GRADING_SECTIONS = 100;

/** A group as the users list names it (`Student`, …), case aside; undefined for anything else. */
export function groupOfLabel(label: string): CourseGroup | undefined {
  const wanted = label.trim().toLowerCase();
  const found = Object.entries(groupLabels).find(([, name]) => name.toLowerCase() === wanted);
  return found ? (Number(found[0]) as CourseGroup) : undefined;
}

const isGrader = (group: CourseGroup) => group === courseGroups.fullAccessGrader || group === courseGroups.limitedAccessGrader;

export { accountFieldProblem, FORMULA_START } from '#shared/users/account-fields.ts';

/** The fields of `PUT …/users/{user_id}` as sent (text fields, trimmed by the rules). */
export interface MemberFields {
  readonly group?: string | undefined;
  readonly registration_section?: string | undefined;
  readonly rotating_section?: string | undefined;
  readonly grading_sections?: readonly string[] | undefined;
  readonly first_name?: string | undefined;
  readonly last_name?: string | undefined;
  readonly email?: string | undefined;
}

/** A section as sent: '' clears it; anything else must be a section name. */
function section(field: string, value: string | undefined, current: string | null): string | null {
  if (value === undefined) return current;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (!isValidSection(trimmed)) throw badSection({ field, section: trimmed.slice(0, 40) });
  return trimmed;
}

/**
 * The member an enrolment or update makes: fields left out keep their value (a new member needs
 * a group); grading sections are a grader's only, and a change to instructor or student clears
 * them.
 */
export function memberAfter(
  course: { term: string; course: string },
  userId: string,
  fields: MemberFields,
  current: Enrollment | undefined,
): Enrollment {
  let group = current?.group;
  if (fields.group !== undefined) {
    group = groupOfLabel(fields.group);
    if (group === undefined) throw badGroup({ group: fields.group.slice(0, 60) });
  }
  if (group === undefined) throw groupRequired();
  const registrationSection = section('registration_section', fields.registration_section, current?.registrationSection ?? null);
  const rotatingSection = section('rotating_section', fields.rotating_section, current?.rotatingSection ?? null);
  let gradingSections: readonly string[] = isGrader(group) ? (current?.gradingSections ?? []) : [];
  if (fields.grading_sections !== undefined) {
    if (!isGrader(group) && fields.grading_sections.length > 0) throw gradingSectionsOfGraders();
    if (fields.grading_sections.length > MAX_GRADING_SECTIONS) throw tooManyGradingSections({ limit: MAX_GRADING_SECTIONS });
    const sections = fields.grading_sections.map((name) => section('grading_sections', name, null)).filter((name) => name !== null);
    gradingSections = [...new Set(sections)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  }
  return { term: course.term, course: course.course, userId, group, registrationSection, rotatingSection, gradingSections };
}

/** The account an enrolment creates for a user id without one (access level user). */
export function newAccount(userId: string, fields: MemberFields): User {
  const given = fields.first_name?.trim() ?? '';
  const family = fields.last_name?.trim() ?? '';
  const email = fields.email?.trim() ?? '';
  if (!given && !family && !email) throw accountFieldsMissing({ user_id: userId });
  for (const [field, value] of [
    ['first_name', given],
    ['last_name', family],
    ['email', email],
  ] as const) {
    const problem = accountFieldProblem(field, value);
    if (problem) throw badAccountField({ field, problem });
  }
  if (!isValidUserId(userId)) throw badAccountField({ field: 'user_id', problem: 'must be 1 to 64 letters, digits or ._@+-' });
  return { userId, givenName: given, familyName: family, email, accessLevel: 'user' };
}

/**
 * A member dropped: a student stays with no sections (their submissions and grades stay theirs,
 * and the lists show them as dropped); staff lose their role (null: the enrollment goes).
 */
export function droppedMember(enrollment: Enrollment): Enrollment | null {
  if (isStaff(enrollment)) return null;
  return { ...enrollment, registrationSection: null, rotatingSection: null, gradingSections: [] };
}

export const sameMember = (a: Enrollment, b: Enrollment): boolean =>
  a.group === b.group &&
  a.registrationSection === b.registrationSection &&
  a.rotatingSection === b.rotatingSection &&
  a.gradingSections.join(',') === b.gradingSections.join(',');

/** A change takes an instructor away: an instructor dropped or given another group. */
export const removesInstructor = (before: Enrollment | undefined, after: Enrollment | null): boolean =>
  before?.group === courseGroups.instructor && after?.group !== courseGroups.instructor;

/**
 * An instructor who stays while `leaving` go (the one a change that removes instructors checks,
 * in its own transaction, is still one); undefined when none would stay.
 */
export function stayingInstructor(enrollments: readonly Enrollment[], leaving: ReadonlySet<string>): string | undefined {
  return enrollments.find((enrollment) => enrollment.group === courseGroups.instructor && !leaving.has(enrollment.userId))?.userId;
}

/** A member's fields as the audit trail keeps them (the users list's names). */
export const memberFieldsOf = (enrollment: Enrollment) => ({
  group: groupLabels[enrollment.group],
  registration_section: enrollment.registrationSection,
  rotating_section: enrollment.rotatingSection,
  grading_sections: [...enrollment.gradingSections],
});

/** The fields that differ between two states of a member (for the audit trail); absent sides stay absent. */
export function memberDiff(before: Enrollment | undefined, after: Enrollment | null) {
  const was: Record<string, unknown> = before ? memberFieldsOf(before) : {};
  const is: Record<string, unknown> = after ? memberFieldsOf(after) : {};
  if (!before || !after) return { ...(before ? { before: was } : {}), ...(after ? { after: is } : {}) };
  const changed = Object.keys(is).filter((key) => JSON.stringify(was[key]) !== JSON.stringify(is[key]));
  return {
    before: Object.fromEntries(changed.map((key) => [key, was[key]])),
    after: Object.fromEntries(changed.map((key) => [key, is[key]])),
  };
}

/** The audit action of a member's change. */
export function memberAction(before: Enrollment | undefined, after: Enrollment | null): string {
  if (!after) return 'member.removed';
  if (!before) return 'member.enrolled';
  if (after.group === courseGroups.student && after.registrationSection === null && before.registrationSection !== null) {
    return 'member.dropped';
  }
  return 'member.changed';
}
