import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { requestGradebookExport } from '#shared/gradebook/exports.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params }) => gradeablesOfCourse(params.semester, params.course),
  handle: ({ caller, enrollment, course, alongside, body }) =>
    requestGradebookExport({ caller, enrollment, course, documents: alongside, body }),
});
