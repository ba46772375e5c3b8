import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { gradebookPage, readPage } from '#shared/gradebook/gradebook.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params }) => gradeablesOfCourse(params.semester, params.course),
  handle: async ({ course, enrollment, alongside, params, query, event }) => {
    const gradeable = alongside.find((document) => document.id === courseGradeable(params).gradeableId);
    if (!gradeable) throw gradeableNotFound();
    const page = readPage(query);
    const { rows, next_cursor } = await gradebookPage(course, gradeable, alongside, enrollment, page);
    return paged(event, { gradeable_id: gradeable.id, students: rows, next_cursor }, next_cursor);
  },
});
