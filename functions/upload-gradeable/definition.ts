import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { dryRun } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'upload-gradeable',
  method: 'POST',
  path: '/api/{semester}/{course}/upload',
  access: 'course:instructor',
  summary:
    'Create a gradeable from gradeable JSON; data is its id. Every problem is listed in data. With dry_run=true: checked, and answered as it would be stored, writing nothing.',
  data: { gradeables: ['BatchGetItem', 'PutItem'], courses: ['ConditionCheckItem'], audit: ['PutItem'] },
  input: () => ({ document: true, query: { dry_run: z.optional(dryRun()) } }),
});
