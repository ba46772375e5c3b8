import { endpoint } from '#shared/http/endpoint.ts';
import { gradeableKey } from '#shared/http/reads.ts';
import { isValidGradeableId } from '#shared/ids.ts';
import { regradeReads, requestRegrade } from '#shared/grading/regrade.ts';

export const handler = endpoint('regrade', {
  reads: ({ params }) => regradeReads(gradeableKey(params)),
  handle: ({ caller, course, params, body, items }) =>
    requestRegrade({
      caller,
      course,
      gradeableId: params.gradeable_id.slice(0, 64),
      gradeable: isValidGradeableId(params.gradeable_id) ? items.gradeable : undefined,
      userId: body.user_id,
      version: body.version_to_regrade,
      queue: items.queue,
    }),
});
