import { gradeableRef } from '#shared/gradeables/stored.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { setExtension, studentLateDayReads } from '#shared/submissions/late-day-table.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { noStudent } from '#shared/tagrading/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => {
    const { term, course, gradeableId } = courseGradeable(params);
    return { gradeable: gradeableRef(term, course, gradeableId), ...studentLateDayReads({ term, course }, params.user_id) };
  },
  malformed: { gradeable_id: () => gradeableNotFound(), user_id: (userId) => noStudent({ user_id: userId }) },
  handle: ({ course, params, items, body }) => setExtension(course, params.user_id, items, body),
});
