import { route } from '#shared/http/routes.ts';
import { MAX_LATE_DAYS } from '#shared/submissions/late-days.ts';
import { required, wholeNumber } from '#shared/http/fields.ts';
import { daysRequired } from '#shared/submissions/failures.ts';

export const definition = route({
  name: 'set-course-late-days',
  method: 'PUT',
  path: '/api/{semester}/{course}/late-days',
  access: 'course:instructor',
  summary: 'Set the late-day budget every student of the course starts with (default_student_late_days).',
  // The audit entry is written with the change (a fresh read, when another change came first, is the token check's BatchGetItem).
  // The late-days check for linked LMS courses that take scores, written with the change (the outbox relay queues it).
  data: { courses: ['UpdateItem'], audit: ['PutItem'], webhookOutbox: ['PutItem'] },
  input: () => ({
    body: {
      default_student_late_days: required(
        wholeNumber({
          description: 'The late days every student of the course starts with (0 until set).',
          mustBe: `a whole number from 0 to ${MAX_LATE_DAYS}`,
          max: MAX_LATE_DAYS,
        }),
        () => daysRequired({ field: 'default_student_late_days' }),
      ),
    },
  }),
});
