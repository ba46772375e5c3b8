import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { staffUserIdQuery } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'gradeable-values',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/values',
  access: 'course:member',
  summary: "Submission and autograding state of the caller's (or, for staff, user_id's) active version.",
  data: { gradeables: ['BatchGetItem'], teams: ['BatchGetItem'], submissions: ['BatchGetItem'], jobs: ['BatchGetItem'] },
  etag: true,
  input: () => ({ query: { user_id: z.optional(staffUserIdQuery()) } }),
});
