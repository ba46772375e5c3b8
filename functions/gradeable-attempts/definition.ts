import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { paging, staffUserIdQuery } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'gradeable-attempts',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/attempts',
  access: 'course:member',
  summary: "The caller's (or, for staff, user_id's) versions, newest first: whole by default, paged when asked.",
  data: { gradeables: ['BatchGetItem'], teams: ['BatchGetItem'], submissions: ['BatchGetItem'], jobs: ['BatchGetItem'] },
  etag: true,
  input: () => ({ query: { user_id: z.optional(staffUserIdQuery()), ...paging('Versions', 'whole') } }),
});
