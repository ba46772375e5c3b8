import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable, shownGradeableId } from '#shared/http/reads.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { presignUploads } from '#shared/submissions/submit-files.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => {
    const { term, course, gradeableId } = courseGradeable(params);
    return { gradeable: gradeableRef(term, course, gradeableId) };
  },
  handle: ({ caller, course, enrollment, params, items, body }) =>
    presignUploads(
      {
        caller,
        course,
        enrollment,
        gradeableId: shownGradeableId(params),
        gradeable: items.gradeable,
      },
      body.files ?? [],
    ),
});
