import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { presignUploads } from '#shared/submissions/uploads.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ gradeable: gradeableRef(params.semester, params.course, params.gradeable_id) }),
  malformed: { gradeable_id: (gradeableId) => invalidGradeableId({ gradeable_id: gradeableId }) },
  handle: ({ caller, course, enrollment, params, items, body }) =>
    presignUploads({ caller, course, enrollment, gradeableId: params.gradeable_id, gradeable: items.gradeable }, body.files ?? []),
});
