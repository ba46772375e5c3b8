import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { documented, text } from '#shared/http/fields.ts';
import { paging } from '#shared/http/parameters.ts';
import { GRADEABLE_ID } from '#shared/ids.ts';
import { SCORE_DELIVERIES_PAGE, SCORE_DELIVERY_STATES } from '#shared/lti/scores.ts';

export const definition = route({
  name: 'list-lti-scores',
  method: 'GET',
  path: '/api/{semester}/{course}/lti/scores',
  access: 'course:instructor-or-superuser',
  summary:
    "LMS grade deliveries: one per linked LMS course, gradeable and student, with its state, tries, the platform's last answer and the score it took; by state and gradeable_id, paged with page_size and cursor.",
  data: { lti: ['Query'] },
  input: () => ({
    query: {
      state: z.optional(
        documented(z.string(), {
          description: 'Only deliveries in this state (`failed`: the LMS refused them; `skipped`: not sent, with why).',
          enum: [...SCORE_DELIVERY_STATES],
        }),
      ),
      gradeable_id: z.optional(text(64, { description: 'Only deliveries of this gradeable.', pattern: GRADEABLE_ID })),
      ...paging('Deliveries', SCORE_DELIVERIES_PAGE),
    },
  }),
});
