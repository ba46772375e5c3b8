import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { gradeableKey } from '#shared/http/reads.ts';
import { gradebookReads, gradebookRows, pageOf, readPage } from '#shared/gradebook/gradebook.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params }) => gradebookReads({ term: params.semester, course: params.course }, gradeableKey(params).gradeableId),
  handle: ({ course, enrollment, alongside, query, event }) => {
    const { gradeable } = alongside;
    if (!gradeable) throw gradeableNotFound();
    const page = readPage(query);
    const { rows, next_cursor } = pageOf(gradebookRows(course, gradeable, enrollment, alongside), page);
    return paged(event, { gradeable_id: gradeable.id, students: rows, next_cursor }, next_cursor);
  },
});
