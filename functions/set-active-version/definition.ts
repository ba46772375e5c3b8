import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { required, text, wholeNumber } from '#shared/http/fields.ts';
import { versionMissing } from '#shared/submissions/failures.ts';

export const definition = route({
  name: 'set-active-version',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/version',
  access: 'course:member',
  summary:
    "Choose the caller's (or, for instructors and full access graders, user_id's) active version; version 0 cancels the submission. Values, late days and summaries follow it.",
  data: {
    gradeables: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem', 'UpdateItem'],
    submissions: ['BatchGetItem', 'UpdateItem'],
    results: ['BatchGetItem'],
    // The new total for linked LMS courses that take scores, written with the change (the outbox relay queues it).
    webhookOutbox: ['PutItem'],
  },
  input: () => ({
    body: {
      version: required(
        wholeNumber({
          description: 'The version to make active, from 1 to the highest; 0 cancels the submission (no active version).',
          mustBe: 'a whole number from 0 (0 cancels the submission)',
          max: Infinity,
          digits: /^\d{1,6}$/,
        }),
        versionMissing,
      ),
      user_id: z.optional(text(256, { description: 'Instructors and full access graders: the student whose version to choose.' })),
    },
  }),
});
