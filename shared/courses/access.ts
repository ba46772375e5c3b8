import { isSuperuser, type User } from '#shared/users/user.ts';
import { courseGroups, isActiveMember, isStaff, type Course, type Enrollment } from './course.ts';

/**
 * Who may call a course-scoped route:
 * - `course:member`: anyone taking the course now (staff, or a student with a section);
 * - `course:staff`: instructors and graders of the course;
 * - `course:instructor`: its instructors;
 * - `course:instructor-or-group-staff`: its staff, and for reading, the instructors and full access
 *   graders of any unarchived course in its access group (the shared file-access group of the
 *   reference system; see `groupRoleOf`);
 * - `course:instructor-or-superuser`: its instructors, and superusers whether or not they are in it.
 */
export type CourseAccess =
  'course:member' | 'course:staff' | 'course:instructor' | 'course:instructor-or-group-staff' | 'course:instructor-or-superuser';

export type CourseAccessDecision = 'allowed' | 'denied' | 'ask-access-group';

export function courseAccess(
  rule: CourseAccess,
  enrollment: Enrollment | undefined,
  caller?: Pick<User, 'accessLevel'>,
): CourseAccessDecision {
  switch (rule) {
    case 'course:member':
      return enrollment && isActiveMember(enrollment) ? 'allowed' : 'denied';
    case 'course:staff':
      return enrollment && isStaff(enrollment) ? 'allowed' : 'denied';
    case 'course:instructor':
      return enrollment?.group === courseGroups.instructor ? 'allowed' : 'denied';
    case 'course:instructor-or-group-staff':
      return enrollment && isStaff(enrollment) ? 'allowed' : 'ask-access-group';
    case 'course:instructor-or-superuser':
      return enrollment?.group === courseGroups.instructor || (caller !== undefined && isSuperuser(caller)) ? 'allowed' : 'denied';
  }
}

export const isCourseAccess = (access: string): access is CourseAccess => access.startsWith('course:');

/** The roles that read across an access group: instructors and full access graders. */
export type GroupRole = typeof courseGroups.instructor | typeof courseGroups.fullAccessGrader;

/**
 * What an enrollment in one course lets its holder read in the other courses of that course's
 * access group: nothing for limited access graders and students, nothing once the course is
 * archived (a past term's staff keep their own course, not the group), and nothing from a course
 * that is no longer in the group.
 */
export function groupRoleOf(
  enrollment: Pick<Enrollment, 'group'> | undefined,
  course: Pick<Course, 'archived' | 'accessGroup'> | undefined,
  accessGroup: string,
): GroupRole | undefined {
  if (!enrollment || !course || course.archived || course.accessGroup !== accessGroup) return undefined;
  return enrollment.group === courseGroups.instructor || enrollment.group === courseGroups.fullAccessGrader ? enrollment.group : undefined;
}

/** The strongest of several group roles (an instructor's over a full access grader's). */
export function strongestGroupRole(roles: readonly (GroupRole | undefined)[]): GroupRole | undefined {
  return roles.reduce<GroupRole | undefined>(
    (best, role) => (role !== undefined && (best === undefined || role < best) ? role : best),
    undefined,
  );
}

/**
 * Hidden test cases' commands and expected outputs reach only instructors: of the course itself,
 * or of an unarchived course in its access group (`acrossGroup`, when the group let the caller in).
 */
export const readsHiddenTests = (enrollment: Pick<Enrollment, 'group'> | undefined, acrossGroup?: GroupRole): boolean =>
  enrollment?.group === courseGroups.instructor || acrossGroup === courseGroups.instructor;
