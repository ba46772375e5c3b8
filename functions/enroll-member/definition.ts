import * as z from 'zod/mini';
import { list, text } from '#shared/http/fields.ts';
import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'enroll-member',
  method: 'PUT',
  path: '/api/{semester}/{course}/users/{user_id}',
  access: 'course:instructor-or-superuser',
  summary:
    "Enrol a member or change their membership: group, registration_section, rotating_section, and a limited access grader's grading_sections. A user id without an account gets one from first_name, last_name and email, with a password shown once.",
  data: {
    users: ['BatchGetItem', 'PutItem'],
    credentials: ['PutItem'],
    enrollments: ['BatchGetItem', 'Query', 'PutItem', 'ConditionCheckItem', 'UpdateItem'],
    accessGroups: ['PutItem', 'DeleteItem'],
    terms: ['BatchGetItem'],
    courses: ['BatchGetItem'],
    audit: ['PutItem'],
  },
  input: () => ({
    body: {
      group: z.optional(
        text(64, {
          description:
            'Instructor, Full Access Grader (Grad TA), Limited Access Grader (Mentor) or Student (as the users list names them); needed for a new member.',
        }),
      ),
      registration_section: z.optional(
        text(64, { description: 'The registration section (1–32 letters, digits, _ or -); an empty string clears it.' }),
      ),
      rotating_section: z.optional(text(64, { description: 'The rotating section; an empty string clears it.' })),
      grading_sections: z.optional(
        list({
          description:
            'Graders only: the registration sections they grade (a limited access grader grades only these); replaces the list; an empty string clears it.',
          items: 'registration sections',
          maxItems: 100,
        }),
      ),
      first_name: z.optional(
        text(100, { description: 'For a user id without an account: its first name (an existing account keeps its own).' }),
      ),
      last_name: z.optional(text(100, { description: 'For a user id without an account: its last name.' })),
      email: z.optional(text(254, { description: 'For a user id without an account: its e-mail address.' })),
    },
  }),
});
