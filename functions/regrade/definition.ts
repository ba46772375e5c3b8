import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { text, wholeNumber } from '#shared/http/fields.ts';

export const definition = route({
  name: 'regrade',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/regrade',
  access: 'course:instructor',
  summary:
    "Queue versions for grading again (after fixing a test case): every active version, user_id's active version (on team gradeables their team's), or with version_to_regrade that version. Answers a job object reporting progress.",
  data: {
    gradeables: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    submissions: ['BatchGetItem', 'Query', 'UpdateItem'],
    jobs: ['BatchGetItem', 'UpdateItem', 'PutItem'],
  },
  queue: 'send',
  input: () => ({
    body: {
      user_id: z.optional(
        text(256, {
          description:
            "A student whose active version to regrade (on team gradeables, a member of the team); none: every student's active version.",
        }),
      ),
      version_to_regrade: z.optional(
        wholeNumber({
          description: 'With user_id: regrade this version (from 1) instead of the active one.',
          mustBe: 'a whole number from 1',
          max: Infinity,
          digits: /^\d{1,6}$/,
        }),
      ),
    },
  }),
});
