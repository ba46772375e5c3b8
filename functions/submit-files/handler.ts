import { endpoint } from '#shared/http/endpoint.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { submitReads } from '#shared/submissions/submit.ts';
import { submitFiles } from '#shared/submissions/submit-files.ts';
import { submissionRepresentation } from '#shared/submissions/standing.ts';
import { answerAsPreferred } from '#shared/http/preferences.ts';
import { IDEMPOTENCY_KEY_HEADER, PREFER_HEADER } from '#shared/http/parameters.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params, userId, headers }) => submitReads(courseGradeable(params), userId, headers[IDEMPOTENCY_KEY_HEADER]),
  malformed: { gradeable_id: (gradeableId) => invalidGradeableId({ gradeable_id: gradeableId }) },
  handle: async ({ caller, course, enrollment, params, items, body, headers }) => {
    const answer = await submitFiles(
      {
        caller,
        course,
        enrollment,
        gradeableId: params.gradeable_id,
        gradeable: items.gradeable,
        userId: body.user_id,
        idempotencyKey: headers[IDEMPOTENCY_KEY_HEADER],
        loaded: {
          submission: items.submission,
          queue: items.queue,
          previous: items.previous,
          load: items.load,
        },
      },
      { files: body.files, uploadIds: body.upload_ids },
    );
    return answerAsPreferred(headers[PREFER_HEADER], answer.message, () => submissionRepresentation(answer, course));
  },
});
