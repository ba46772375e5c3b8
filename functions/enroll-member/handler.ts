import { memberReads, putMember } from '#shared/courses/enroll.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => memberReads({ term: params.semester, course: params.course }, params.user_id),
  handle: ({ course, params, body, caller, items }) => putMember(course, params.user_id, body, caller.userId, items),
});
