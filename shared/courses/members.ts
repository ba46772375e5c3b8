import { enrollmentsOfCourse, enrollmentsOfUser } from '#shared/data/enrollments.ts';
import { courseRef } from '#shared/data/courses.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import { termRef } from '#shared/data/terms.ts';
import { userRef } from '#shared/data/users.ts';
import { isValidUserId, type User } from '#shared/users/user.ts';
import { courseId, type Course, type CourseListing, type Enrollment, type Term } from './course.ts';

/** Everyone in a course with their profile (a member without a profile is left out). */
export async function membersOf(course: Pick<Course, 'term' | 'course'>) {
  const enrollments = await enrollmentsOfCourse(course.term, course.course);
  const refs: Record<string, ItemRef<User>> = {};
  for (const enrollment of enrollments) refs[enrollment.userId] = userRef(enrollment.userId);
  const people = await getItems(refs);
  return enrollments.flatMap((enrollment: Enrollment) => {
    const person = people[enrollment.userId];
    return person ? [{ person, enrollment }] : [];
  });
}

/** Whose courses `GET /api/courses` lists: `user_id` when given, else the caller's own. */
export const listedUser = (requested: string | undefined, callerId: string): string => requested ?? callerId;

/** Every course a user is in, with the course and its term (none for a malformed user id). */
export async function courseListingsOf(userId: string): Promise<CourseListing[]> {
  if (!isValidUserId(userId)) return [];
  const enrollments = await enrollmentsOfUser(userId);
  const refs: Record<string, ItemRef<Course> | ItemRef<Term>> = {};
  for (const { term, course } of enrollments) {
    refs[`course:${courseId(term, course)}`] = courseRef(term, course);
    refs[`term:${term}`] = termRef(term);
  }
  const loaded = (await getItems(refs)) as Record<string, Course | Term | undefined>;
  return enrollments.flatMap((enrollment) => {
    const course = loaded[`course:${courseId(enrollment.term, enrollment.course)}`] as Course | undefined;
    const term = loaded[`term:${enrollment.term}`] as Term | undefined;
    return course ? [{ course, term, enrollment }] : [];
  });
}
