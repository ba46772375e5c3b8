import { route } from '#shared/http/routes.ts';
import { wholeNumber } from '#shared/http/fields.ts';
import { staffUserIdQuery } from '#shared/http/parameters.ts';
import * as z from 'zod/mini';

export const definition = route({
  name: 'submission-files',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/files',
  access: 'course:member',
  summary:
    "A version's files (`version`, by default the active one; the caller's own, or for staff `user_id`'s, limited access graders their sections'), each with a presigned download link valid for 5 minutes.",
  data: { gradeables: ['BatchGetItem'], teams: ['BatchGetItem'], submissions: ['BatchGetItem'] },
  objects: { versions: ['GetObject', 'ListBucket'] },
  input: () => ({
    query: {
      version: wholeNumber({ description: 'The version whose files to list (by default the active version).', mustBe: 'a version number' }),
      user_id: z.optional(staffUserIdQuery()),
    },
  }),
});
