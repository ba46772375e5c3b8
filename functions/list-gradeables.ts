import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { listGradeables } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('list-gradeables', {
  alongside: ({ params }) => gradeablesOfCourse(params.semester, params.course),
  handle: ({ course, enrollment, alongside }) => listGradeables(alongside, course, enrollment, new Date()),
});
