import { endpoint } from '#shared/http/endpoint.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { everySubmissionAsked, regradeReads, requestRegrade } from '#shared/grading/regrade.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params, body }) => regradeReads(courseGradeable(params), body.user_id),
  alongside: ({ params, body }) => everySubmissionAsked(courseGradeable(params), body.user_id),
  malformed: { gradeable_id: (gradeableId) => invalidGradeableId({ gradeable_id: gradeableId }) },
  handle: ({ caller, course, params, body, items, alongside }) =>
    requestRegrade({
      caller,
      course,
      gradeableId: params.gradeable_id,
      gradeable: items.gradeable,
      userId: body.user_id,
      version: body.version_to_regrade,
      student: items,
      submissions: alongside,
    }),
});
