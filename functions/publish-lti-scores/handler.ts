import { endpoint } from '#shared/http/endpoint.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { publishGradeable } from '#shared/lti/score-deliveries.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ gradeable: gradeableRef(params.semester, params.course, params.gradeable_id) }),
  malformed: { gradeable_id: (gradeableId) => invalidGradeableId({ gradeable_id: gradeableId }) },
  handle: ({ course, params, items }) => publishGradeable(course, params.gradeable_id, items.gradeable),
});
