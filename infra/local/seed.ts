import { setPassword } from '#shared/auth/tokens.ts';
import { bootstrapCourse } from '#shared/courses/create-course.ts';
import { enroll } from '#shared/courses/enroll.ts';
import type { Course, CourseGroup, Enrollment, Term } from '#shared/courses/course.ts';
import { setArchived } from '#shared/data/courses.ts';
import { putTerm } from '#shared/data/terms.ts';
import { putUser } from '#shared/data/users.ts';
import type { User } from '#shared/users/user.ts';

/** The demo dataset; every password equals its user id (local use only). */
export const demoUsers: readonly User[] = [
  { userId: 'admin', givenName: 'Alex', familyName: 'Admin', email: 'admin@example.edu', accessLevel: 'superuser' },
  { userId: 'instructor', givenName: 'Ines', familyName: 'Instructor', email: 'instructor@example.edu', accessLevel: 'faculty' },
  { userId: 'ta', givenName: 'Theo', familyName: 'Assistant', email: 'ta@example.edu', accessLevel: 'user' },
  { userId: 'mentor', givenName: 'Mia', familyName: 'Mentor', email: 'mentor@example.edu', accessLevel: 'user' },
  { userId: 'student', givenName: 'Sam', familyName: 'Student', email: 'student@example.edu', accessLevel: 'user' },
  { userId: 'student2', givenName: 'Jordan', familyName: 'Lee', email: 'student2@example.edu', accessLevel: 'user' },
  { userId: 'student3', givenName: 'Riley', familyName: 'Garcia', email: 'student3@example.edu', accessLevel: 'user' },
];

export const demoTerms: readonly Term[] = [
  { termId: 'f26', name: 'Fall 2026', startDate: '2026-08-24', endDate: '2026-12-18' },
  { termId: 's26', name: 'Spring 2026', startDate: '2026-01-12', endDate: '2026-05-08' },
];

const sample = (term: string): Course => ({
  term,
  course: 'sample',
  displayName: 'Sample Course',
  archived: false,
  timeZone: 'America/New_York',
  accessGroup: 'sample',
});

const member = (
  course: Course,
  userId: string,
  group: CourseGroup,
  registrationSection: string | null,
  gradingSections: string[] = [],
): Enrollment => ({ term: course.term, course: course.course, userId, group, registrationSection, rotatingSection: null, gradingSections });

export async function seedDemoData(): Promise<void> {
  await Promise.all([
    ...demoUsers.map(async (user) => {
      await putUser(user);
      await setPassword(user.userId, user.userId);
    }),
    ...demoTerms.map(putTerm),
  ]);
  const fall = sample('f26');
  const spring = sample('s26');
  await Promise.all([bootstrapCourse(fall, 'instructor'), bootstrapCourse(spring, 'instructor')]);
  await enroll(fall, [
    member(fall, 'ta', 2, null, ['1', '2']),
    member(fall, 'mentor', 3, null, ['1']),
    member(fall, 'student', 4, '1'),
    member(fall, 'student2', 4, '2'),
    member(fall, 'student3', 4, null),
  ]);
  await enroll(spring, [member(spring, 'student', 4, '1')]);
  await setArchived('s26', 'sample', true);
}
