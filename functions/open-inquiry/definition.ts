import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { required, text, wholeNumber } from '#shared/http/fields.ts';
import { contentMissing } from '#shared/inquiries/failures.ts';
import { MAX_CONTENT_LENGTH } from '#shared/inquiries/limits.ts';

export const definition = route({
  name: 'open-inquiry',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/inquiries',
  access: 'course:member',
  summary:
    "Open a grade inquiry about the caller's own (or their team's) released grade, within the gradeable's inquiry window: about a rubric component when the gradeable takes them per component, otherwise about the whole grade; one open inquiry per component (or grade). Students only; kept in the course's audit trail, and sent as the webhook event inquiry.opened.",
  data: {
    gradeables: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    inquiries: ['PutItem'],
    audit: ['PutItem'],
    // The inquiry.opened event, written with the inquiry and removed once queued.
    webhookOutbox: ['PutItem', 'DeleteItem'],
  },
  events: 'publish',
  input: () => ({
    body: {
      content: required(
        text(MAX_CONTENT_LENGTH, {
          description: `What the student asks (at most ${MAX_CONTENT_LENGTH} characters), the inquiry's first post.`,
        }),
        contentMissing,
        { blankIsMissing: true },
      ),
      component_id: z.optional(
        wholeNumber({
          description:
            'The rubric component asked about, by its place in the rubric (from 0): required when the gradeable takes inquiries per component (grade_inquiry_per_component_allowed), refused otherwise.',
          mustBe: 'a whole number (a component’s place in the rubric, from 0)',
        }),
      ),
    },
  }),
});
