import { courseRef } from '#shared/data/courses.ts';
import { copiedEnrollmentsOfCourse, copiedEnrollmentsOfUser, type CopiedEnrollment } from '#shared/data/enrollments.ts';
import { getItems, type ItemRef } from '#shared/data/items.ts';
import { termRef } from '#shared/data/terms.ts';
import { userRef } from '#shared/data/users.ts';
import { isValidUserId, type User } from '#shared/users/user.ts';
import { courseId, type Course, type CourseListing, type Enrollment, type PersonName, type Term } from './course.ts';

/**
 * Everyone in a course with their profile (a member without a profile is left out): from the
 * copies on the enrollment items, and from the users table only for items without one.
 */
export async function membersOf(course: Pick<Course, 'term' | 'course'>) {
  const enrollments = await copiedEnrollmentsOfCourse(course.term, course.course);
  const refs: Record<string, ItemRef<User>> = {};
  for (const { enrollment, member } of enrollments) if (!member) refs[enrollment.userId] = userRef(enrollment.userId);
  // Nothing is sent when every item has its copy (getItems of no refs).
  const people = await getItems(refs);
  return membersFrom(enrollments, people);
}

/** The members with their profiles: the copied one, else the one read. */
export function membersFrom(
  enrollments: readonly CopiedEnrollment[],
  people: Readonly<Record<string, PersonName | undefined>>,
): { person: PersonName; enrollment: Enrollment }[] {
  return enrollments.flatMap(({ enrollment, member }) => {
    const person = member ? { userId: enrollment.userId, ...member } : people[enrollment.userId];
    return person ? [{ person, enrollment }] : [];
  });
}

/** Whose courses `GET /api/courses` lists: `user_id` when given, else the caller's own. */
export const listedUser = (requested: string | undefined, callerId: string): string => requested ?? callerId;

/**
 * Every course a user is in, with the course and its term (none for a malformed user id): from
 * the copies on the enrollment items, and from the courses and terms only for items without one.
 */
export async function courseListingsOf(userId: string): Promise<CourseListing[]> {
  if (!isValidUserId(userId)) return [];
  const enrollments = await copiedEnrollmentsOfUser(userId);
  const refs: Record<string, ItemRef<Course> | ItemRef<Term>> = {};
  for (const { enrollment, listing } of enrollments) {
    if (listing) continue;
    refs[`course:${courseId(enrollment.term, enrollment.course)}`] = courseRef(enrollment.term, enrollment.course);
    refs[`term:${enrollment.term}`] = termRef(enrollment.term);
  }
  const loaded = (await getItems(refs)) as Record<string, Course | Term | undefined>;
  return listingsFrom(enrollments, loaded);
}

/** The listings: from an item's copy, else from the course and term read (`course:<id>`, `term:<id>`). */
export function listingsFrom(
  enrollments: readonly CopiedEnrollment[],
  loaded: Readonly<Record<string, Course | Term | undefined>>,
): CourseListing[] {
  return enrollments.flatMap(({ enrollment, listing }): CourseListing[] => {
    if (listing) {
      const course = { term: enrollment.term, course: enrollment.course, displayName: listing.displayName, archived: listing.archived };
      const term = listing.termName === null ? undefined : { name: listing.termName, startDate: listing.termStart ?? '' };
      return [{ course, term, enrollment }];
    }
    const course = loaded[`course:${courseId(enrollment.term, enrollment.course)}`] as Course | undefined;
    const term = loaded[`term:${enrollment.term}`] as Term | undefined;
    return course ? [{ course, term, enrollment }] : [];
  });
}
