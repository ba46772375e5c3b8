import { courseUsers, userListOrder } from '#shared/courses/course.ts';
import { membersOf } from '#shared/courses/members.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { wholeOrPaged } from '#shared/http/paging.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params }) => membersOf({ term: params.semester, course: params.course }),
  handle: ({ alongside, query, url }) => wholeOrPaged({ url, query }, courseUsers(alongside), { ...userListOrder, list: 'users list' }),
});
