import { courseGraders, userListOrder } from '#shared/courses/course.ts';
import { membersOf } from '#shared/courses/members.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { wholeOrPaged } from '#shared/http/paging.ts';

export const handler = endpoint('course-graders', {
  handle: async ({ course, query, event }) =>
    wholeOrPaged({ event, query }, courseGraders(await membersOf(course)), { ...userListOrder, list: 'graders list' }),
});
