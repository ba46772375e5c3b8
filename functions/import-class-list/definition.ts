import * as z from 'zod/mini';
import { csvDocument, flag, required } from '#shared/http/fields.ts';
import { classListMissing } from '#shared/courses/failures.ts';
import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'import-class-list',
  method: 'POST',
  path: '/api/{semester}/{course}/users/import',
  access: 'course:instructor-or-superuser',
  summary:
    'Import a class list (CSV: user_id, first_name, last_name, email, registration_section, group): counts of members created, updated, unchanged and dropped, and each rejected line. dry_run writes nothing; drop_missing drops students not in the list.',
  data: {
    users: ['BatchGetItem', 'PutItem'],
    credentials: ['PutItem'],
    enrollments: ['Query', 'PutItem', 'ConditionCheckItem', 'UpdateItem'],
    accessGroups: ['PutItem', 'DeleteItem'],
    terms: ['BatchGetItem'],
    courses: ['BatchGetItem'],
    audit: ['PutItem'],
  },
  input: () => ({
    csv: 'class_list',
    query: {
      dry_run: z.optional(flag({ description: 'Report what would change; write nothing.' })),
      drop_missing: z.optional(
        flag({ description: 'Drop the students (with a registration section) who are not in the list; staff stay.' }),
      ),
    },
    body: {
      // None, or nothing but white space: sent as neither a text/csv body nor the file field.
      class_list: required(
        csvDocument({
          description:
            'The class list: a header row naming user_id, first_name, last_name, email, registration_section and group (any order), then a row a member. Sent as the whole `text/csv` body, or as this multipart file field.',
        }),
        classListMissing,
        { blankIsMissing: true },
      ),
    },
  }),
});
