import { courseGroups, isActiveMember, isStaff, type Enrollment } from './course.ts';

/**
 * Who may call a course-scoped route:
 * - `course:member`: anyone taking the course now (staff, or a student with a section);
 * - `course:staff`: instructors and graders of the course;
 * - `course:instructor`: its instructors;
 * - `course:instructor-or-group-staff`: its instructors, and for reading, staff of any course in
 *   its access group (the shared file-access group of the reference system).
 */
export type CourseAccess = 'course:member' | 'course:staff' | 'course:instructor' | 'course:instructor-or-group-staff';

export type CourseAccessDecision = 'allowed' | 'denied' | 'ask-access-group';

export function courseAccess(rule: CourseAccess, enrollment: Enrollment | undefined): CourseAccessDecision {
  switch (rule) {
    case 'course:member':
      return enrollment && isActiveMember(enrollment) ? 'allowed' : 'denied';
    case 'course:staff':
      return enrollment && isStaff(enrollment) ? 'allowed' : 'denied';
    case 'course:instructor':
      return enrollment?.group === courseGroups.instructor ? 'allowed' : 'denied';
    case 'course:instructor-or-group-staff':
      return enrollment && isStaff(enrollment) ? 'allowed' : 'ask-access-group';
  }
}

export const isCourseAccess = (access: string): access is CourseAccess => access.startsWith('course:');
