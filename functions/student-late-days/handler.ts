import { endpoint } from '#shared/http/endpoint.ts';
import { noStudentNamed, studentLateDayReads, studentLateDayTable, studentWork } from '#shared/submissions/late-day-table.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => studentLateDayReads({ term: params.semester, course: params.course }, params.user_id),
  alongside: ({ params }) => studentWork({ term: params.semester, course: params.course }, params.user_id),
  malformed: { user_id: (userId, { enrollment }) => noStudentNamed(userId, { enrollment }) },
  handle: ({ caller, course, enrollment, params, items, alongside }) =>
    studentLateDayTable(course, { userId: caller.userId, enrollment }, params.user_id, items, alongside),
});
