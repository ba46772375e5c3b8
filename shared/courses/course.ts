/** Terms, courses and enrollments, and the pure rules over them. */
import type { Course } from '#shared/data/courses.ts';
import type { CourseGroup, Enrollment } from '#shared/data/enrollments.ts';
import type { Term } from '#shared/data/terms.ts';

export type { Course, SummaryGeneration } from '#shared/data/courses.ts';
export type { CourseGroup, Enrollment } from '#shared/data/enrollments.ts';
export type { Term } from '#shared/data/terms.ts';
export { courseId } from '#shared/data/keys.ts';

/** Per-course groups, numbered as the reference numbers them (docs/reference-compatibility.md, Roles). */
export const courseGroups = {
  instructor: 1,
  fullAccessGrader: 2,
  limitedAccessGrader: 3,
  student: 4,
} as const;

export const groupLabels: Record<CourseGroup, string> = {
  1: 'Instructor',
  2: 'Full Access Grader (Grad TA)',
  3: 'Limited Access Grader (Mentor)',
  4: 'Student',
};

/** Term and course codes: lowercase letters, digits and underscores, as in the reference. */
export { isValidCode } from '#shared/ids.ts';

const SECTION = /^[A-Za-z0-9_-]{1,32}$/;
export const isValidSection = (section: string): boolean => SECTION.test(section);

/** Whether the course takes submissions and uploads: unarchived, or archived with `archived_accepts_submissions`. */
export const takesSubmissions = (course: Pick<Course, 'archived' | 'archivedAcceptsSubmissions'>): boolean =>
  !course.archived || course.archivedAcceptsSubmissions === true;

/** An access group's name: 1 to 64 letters, digits, dots, underscores or hyphens. */
export const isValidAccessGroup = (name: string): boolean => /^[A-Za-z0-9._-]{1,64}$/.test(name);

/** The access group of its own a course gets when created without a base course or a named group. */
export const ownAccessGroup = (course: Pick<Course, 'term' | 'course'>): string => `${course.term}.${course.course}`;

export const isStaff = (enrollment: Pick<Enrollment, 'group'>): boolean => enrollment.group < courseGroups.student;

/** Taking the course now: any staff role, or a student with a registration section (not dropped). */
export const isActiveMember = (enrollment: Enrollment): boolean => isStaff(enrollment) || enrollment.registrationSection !== null;

/**
 * The course summary of `GET /api/courses`, with `user_group` and `registration_section`, which the
 * reference's clients read (docs/reference-compatibility.md, Courses).
 */
export function courseSummary(
  course: Pick<Course, 'term' | 'course' | 'displayName'>,
  term: Pick<Term, 'name'> | undefined,
  enrollment: Pick<Enrollment, 'group' | 'registrationSection'>,
) {
  return {
    semester: course.term,
    title: course.course,
    display_name: course.displayName,
    display_semester: term?.name ?? course.term,
    user_group: enrollment.group,
    registration_section: enrollment.registrationSection,
  };
}

export interface CourseListing {
  readonly course: Pick<Course, 'term' | 'course' | 'displayName' | 'archived'>;
  readonly term: Pick<Term, 'name' | 'startDate'> | undefined;
  readonly enrollment: Enrollment;
}

/**
 * A user's courses: unarchived ones they take now, and archived ones they taught; ordered by
 * group, then term start (newest first), then course code.
 */
export function listCourses(listings: readonly CourseListing[]) {
  const ordered = [...listings].sort(
    (a, b) =>
      a.enrollment.group - b.enrollment.group ||
      (b.term?.startDate ?? '').localeCompare(a.term?.startDate ?? '') ||
      a.course.course.localeCompare(b.course.course),
  );
  const summary = ({ course, term, enrollment }: CourseListing) => courseSummary(course, term, enrollment);
  return {
    unarchived_courses: ordered.filter(({ course, enrollment }) => !course.archived && isActiveMember(enrollment)).map(summary),
    archived_courses: ordered
      .filter(({ course, enrollment }) => course.archived && enrollment.group === courseGroups.instructor)
      .map(summary),
  };
}

export interface PersonName {
  readonly userId: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
}

/** How the reference shows a member without a section. */
export const NULL_SECTION = 'NULL';

/**
 * A user record of the users and graders lists, with the reference's `given_name`/`family_name` and
 * `"NULL"` sections (docs/reference-compatibility.md).
 */
export function userRecord(person: PersonName, enrollment: Enrollment, registrationSection: string) {
  return {
    first_name: person.givenName,
    last_name: person.familyName,
    user_id: person.userId,
    email: person.email,
    reg_section: registrationSection,
    rot_section: enrollment.rotatingSection ?? NULL_SECTION,
    group: groupLabels[enrollment.group],
    given_name: person.givenName,
    family_name: person.familyName,
  };
}

export type UserRecord = ReturnType<typeof userRecord>;

/** Registration section, then user id; sections compare as numbers where they are numbers, NULL last. */
export function byRegistrationSection(
  a: Pick<UserRecord, 'reg_section' | 'user_id'>,
  b: Pick<UserRecord, 'reg_section' | 'user_id'>,
): number {
  const nullOrder = Number(a.reg_section === NULL_SECTION) - Number(b.reg_section === NULL_SECTION);
  return nullOrder || a.reg_section.localeCompare(b.reg_section, 'en', { numeric: true }) || a.user_id.localeCompare(b.user_id, 'en');
}

export function courseUsers(members: readonly { person: PersonName; enrollment: Enrollment }[]) {
  return members
    .map(({ person, enrollment }) => userRecord(person, enrollment, enrollment.registrationSection ?? NULL_SECTION))
    .sort(byRegistrationSection);
}

/** Graders: `All` sections for instructors, the sections they grade for the other graders. */
export function courseGraders(members: readonly { person: PersonName; enrollment: Enrollment }[]) {
  return members
    .filter(({ enrollment }) => isStaff(enrollment))
    .map(({ person, enrollment }) =>
      userRecord(
        person,
        enrollment,
        enrollment.group === courseGroups.instructor ? 'All' : enrollment.gradingSections.join(',') || NULL_SECTION,
      ),
    )
    .sort(byRegistrationSection);
}

/**
 * The order of the users and graders lists as pages see it: a record's position is its
 * [reg_section, user_id] (the lists' cursors name the last record of a page by it).
 */
export const userListOrder = {
  keys: 2,
  position: (record: Pick<UserRecord, 'reg_section' | 'user_id'>) => [record.reg_section, record.user_id],
  compare: (record: Pick<UserRecord, 'reg_section' | 'user_id'>, [section = '', user = '']: readonly string[]) =>
    byRegistrationSection(record, { reg_section: section, user_id: user }),
};
