import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { MAX_LATE_DAYS, MAX_REASON_LENGTH } from '#shared/submissions/late-days.ts';
import { required, text, wholeNumber } from '#shared/http/fields.ts';
import { daysRequired } from '#shared/submissions/failures.ts';

export const definition = route({
  name: 'set-extension',
  method: 'PUT',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/extensions/{user_id}',
  access: 'course:instructor',
  summary:
    "Set a student's extension on a gradeable: late_days days late neither charged nor bad (0 removes it), with reason_for_exception.",
  data: {
    gradeables: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    lateDays: ['BatchGetItem', 'UpdateItem'],
    // The late-days check for linked LMS courses that take scores, written with the extension (the outbox relay queues it).
    webhookOutbox: ['PutItem'],
  },
  input: () => ({
    body: {
      late_days: required(
        wholeNumber({
          description: 'Days late on this gradeable that are neither charged nor bad; 0 removes the extension.',
          mustBe: `a whole number from 0 to ${MAX_LATE_DAYS}`,
          max: MAX_LATE_DAYS,
        }),
        () => daysRequired({ field: 'late_days' }),
      ),
      reason_for_exception: z.optional(text(MAX_REASON_LENGTH, { description: 'Why (shown in the summaries).' })),
    },
  }),
});
