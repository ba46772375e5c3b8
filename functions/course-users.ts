import { courseUsers } from '#shared/courses/course.ts';
import { membersOf } from '#shared/courses/members.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('course-users', {
  handle: async ({ course }) => courseUsers(await membersOf(course)),
});
