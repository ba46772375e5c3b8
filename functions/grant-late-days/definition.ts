import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { MAX_LATE_DAYS } from '#shared/submissions/late-days.ts';
import { required, text, wholeNumber } from '#shared/http/fields.ts';
import { daysRequired } from '#shared/submissions/failures.ts';

export const definition = route({
  name: 'grant-late-days',
  method: 'POST',
  path: '/api/{semester}/{course}/late-days/{user_id}',
  access: 'course:instructor',
  summary: 'Grant a student late days: from since on, their budget is allowed_late_days in all (days already charged included).',
  data: {
    enrollments: ['BatchGetItem'],
    lateDays: ['BatchGetItem', 'UpdateItem'],
    // The late-days check for linked LMS courses that take scores, written with the grant (the outbox relay queues it).
    webhookOutbox: ['PutItem'],
  },
  input: () => ({
    body: {
      allowed_late_days: required(
        wholeNumber({
          description: "The student's late days in all from `since` on, those already charged included.",
          mustBe: `a whole number from 0 to ${MAX_LATE_DAYS}`,
          max: MAX_LATE_DAYS,
        }),
        () => daysRequired({ field: 'allowed_late_days' }),
      ),
      since: z.optional(
        text(64, {
          description:
            "When the grant starts: a date `YYYY-MM-DD` (its midnight in the course's time zone), `YYYY-MM-DD HH:MM:SS` in that zone, or ISO 8601 with an offset; now when left out. A grant from the same instant replaces the earlier one.",
        }),
      ),
    },
  }),
});
