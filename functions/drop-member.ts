import { dropMember, memberReads } from '#shared/courses/enroll.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('drop-member', {
  reads: ({ params }) => memberReads({ term: params.semester, course: params.course }, params.user_id),
  handle: ({ course, params, caller, items }) => dropMember(course, params.user_id, caller.userId, items),
});
