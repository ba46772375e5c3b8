import { courseGraders } from '#shared/courses/course.ts';
import { membersOf } from '#shared/courses/members.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('course-graders', {
  handle: async ({ course }) => courseGraders(await membersOf(course)),
});
