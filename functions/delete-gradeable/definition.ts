import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { ifMatch } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'delete-gradeable',
  method: 'DELETE',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}',
  access: 'course:instructor',
  summary:
    'Delete a gradeable nothing was submitted to or graded on, and that has no teams; data is the deleted gradeable JSON. Honours If-Match.',
  data: { gradeables: ['BatchGetItem', 'UpdateItem', 'DeleteItem'], submissions: ['Query'], teams: ['Query'], audit: ['PutItem'] },
  input: () => ({ headers: { 'If-Match': z.optional(ifMatch()) } }),
});
