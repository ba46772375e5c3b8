import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { listGradeables } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('list-gradeables', {
  handle: async ({ course, enrollment }) =>
    listGradeables(await gradeablesOfCourse(course.term, course.course), course, enrollment, new Date()),
});
