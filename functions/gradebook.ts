import { gradeableRef } from '#shared/gradeables/stored.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { gradeableKey } from '#shared/http/reads.ts';
import { loadGradebook, pageOf, readPage } from '#shared/gradebook/gradebook.ts';

export const handler = endpoint('gradebook', {
  reads: ({ params }) => {
    const { term, course, gradeableId } = gradeableKey(params);
    return { gradeable: gradeableRef(term, course, gradeableId) };
  },
  handle: async ({ course, enrollment, items, query, event }) => {
    if (!items.gradeable) throw gradeableNotFound();
    const page = readPage(query);
    const { rows, next_cursor } = pageOf(await loadGradebook(course, items.gradeable, enrollment), page);
    return paged(event, { gradeable_id: items.gradeable.id, students: rows, next_cursor }, next_cursor);
  },
});
