import { isValidGradeableId } from '#shared/gradeables/gradeable.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { submissionPreload, submitVcs } from '#shared/submissions/submit.ts';

export const handler = endpoint('submit-vcs', {
  reads: submissionPreload,
  handle: ({ caller, course, enrollment, params, items, body, event }) =>
    submitVcs({
      caller,
      course,
      enrollment: enrollment!,
      gradeableId: params.gradeable_id!.slice(0, 64),
      gradeable: isValidGradeableId(params.gradeable_id ?? '') ? items.gradeable : undefined,
      body,
      idempotencyKey: event.headers['idempotency-key'],
      preloaded: { submission: items.submission, queue: items.queue, previous: items.previous },
    }),
});
