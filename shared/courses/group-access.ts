import { staffCoursesInGroup } from '#shared/data/access-groups.ts';
import { courseRef } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems, type ItemRefs } from '#shared/data/items.ts';
import { groupRoleOf, strongestGroupRole, type GroupRole } from './access.ts';
import { courseId, type Course, type Enrollment } from './course.ts';

/**
 * The user's strongest role across an access group (groupRoleOf), or none: the staff markers name
 * the courses to look at, and each course and the user's enrollment in it (one BatchGetItem) say
 * what the user is there now.
 */
export async function accessGroupRole(accessGroup: string, userId: string): Promise<GroupRole | undefined> {
  const courses = await staffCoursesInGroup(accessGroup, userId);
  if (courses.length === 0) return undefined;
  const refs: ItemRefs = {};
  for (const { term, course } of courses) {
    refs[`course:${courseId(term, course)}`] = courseRef(term, course);
    refs[`enrollment:${courseId(term, course)}`] = enrollmentRef(term, course, userId);
  }
  const loaded = (await getItems(refs)) as Record<string, Course | Enrollment | undefined>;
  return strongestGroupRole(
    courses.map(({ term, course }) =>
      groupRoleOf(
        loaded[`enrollment:${courseId(term, course)}`] as Enrollment | undefined,
        loaded[`course:${courseId(term, course)}`] as Course | undefined,
        accessGroup,
      ),
    ),
  );
}
