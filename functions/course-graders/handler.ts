import { courseGraders, userListOrder } from '#shared/courses/course.ts';
import { membersOf } from '#shared/courses/members.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { wholeOrPaged } from '#shared/http/paging.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params }) => membersOf({ term: params.semester, course: params.course }),
  handle: ({ alongside, query, event }) =>
    wholeOrPaged({ event, query }, courseGraders(alongside), { ...userListOrder, list: 'graders list' }),
});
