import { endpoint } from '#shared/http/endpoint.ts';
import { grantLateDays, studentLateDayReads } from '#shared/submissions/late-day-table.ts';
import { noStudent } from '#shared/tagrading/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => studentLateDayReads({ term: params.semester, course: params.course }, params.user_id),
  malformed: { user_id: (userId) => noStudent({ user_id: userId }) },
  handle: ({ course, params, items, body }) => grantLateDays(course, params.user_id, items, body),
});
