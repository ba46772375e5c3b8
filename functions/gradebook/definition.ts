import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { DEFAULT_PAGE } from '#shared/gradebook/page.ts';
import { PAGE_SIZE } from '#shared/paging.ts';
import { documented } from '#shared/http/fields.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'gradebook',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/gradebook',
  access: 'course:staff',
  summary:
    "One gradeable's gradebook: every student's submission state, active version, autograding and TA scores, late days and grader, by section then user, paged with a cursor. Limited access graders: their sections.",
  data: {
    gradeables: ['Query'],
    enrollments: ['Query bySection'],
    submissions: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    lateDays: ['BatchGetItem'],
  },
  input: () => ({
    query: {
      ...paging('Students', DEFAULT_PAGE),
      limit: z.optional(documented(z.string(), { description: 'The older name of `page_size`.', pattern: PAGE_SIZE.source })),
    },
  }),
});
