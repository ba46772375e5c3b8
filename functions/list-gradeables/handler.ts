import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { listGradeables } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params }) => gradeablesOfCourse(params.semester, params.course),
  handle: ({ course, enrollment, alongside }) => listGradeables(alongside, course, enrollment, new Date()),
});
