import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { flag, required, text } from '#shared/http/fields.ts';
import { courseFieldsMissing } from '#shared/courses/failures.ts';
import { code } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'create-course',
  method: 'POST',
  path: '/api/courses',
  access: 'faculty',
  summary:
    'Create a course from a base course (joining its access group); faculty for themselves, superusers for anyone, also without a base course or in an access group they name.',
  data: {
    courses: ['BatchGetItem', 'PutItem', 'ConditionCheckItem'],
    enrollments: ['BatchGetItem', 'PutItem'],
    accessGroups: ['Query', 'PutItem'],
    gradeables: ['Query', 'PutItem'],
    // The head instructor's enrollment copies the profile and the term only if they did not change since read.
    terms: ['BatchGetItem', 'ConditionCheckItem'],
    users: ['BatchGetItem', 'ConditionCheckItem'],
  },
  input: () => ({
    body: {
      // Any of the three missing or empty: the one message the reference has for them all.
      course_semester: required(code('The new course’s term.'), courseFieldsMissing, { emptyIsMissing: true }),
      course_title: required(code('The new course’s code.'), courseFieldsMissing, { emptyIsMissing: true }),
      head_instructor: required(text(256, { description: 'Its instructor (faculty: themselves).' }), courseFieldsMissing, {
        emptyIsMissing: true,
      }),
      base_course: z.optional(text(256, { description: 'Or both as `term|course` (the web form).' })),
      base_course_semester: z.optional(code('The base course’s term …')),
      base_course_title: z.optional(code('… and code. Superusers may leave out the base course: the course then gets a group of its own.')),
      access_group: z.optional(
        text(64, { description: 'Superusers: the access group the course joins (default: the base course’s, or `<term>.<course>`).' }),
      ),
      copy_gradeables: z.optional(flag({ description: 'Copy the base course’s gradeables (at most 95).' })),
    },
  }),
});
