import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { staffUserIdQuery } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'gradeable-values',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/values',
  access: 'course:member',
  summary: "Submission and autograding state of the caller's (or, for staff, user_id's) active version.",
  // Beside the version's own items, what the student's standing reads: their late days and the
  // course's gradeables with their active days late on each (late-day-table.ts), and recent job times.
  data: {
    gradeables: ['BatchGetItem', 'Query'],
    teams: ['BatchGetItem', 'Query byStudent'],
    submissions: ['BatchGetItem', 'Query byStudent'],
    jobs: ['BatchGetItem'],
    lateDays: ['BatchGetItem'],
  },
  etag: true,
  input: () => ({ query: { user_id: z.optional(staffUserIdQuery()) } }),
});
