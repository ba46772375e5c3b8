import { dropMember, memberReads } from '#shared/courses/enroll.ts';
import { badUserId } from '#shared/courses/failures.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => memberReads({ term: params.semester, course: params.course }, params.user_id),
  malformed: { user_id: () => badUserId() },
  handle: ({ course, params, caller, items }) => dropMember(course, params.user_id, caller.userId, items),
});
