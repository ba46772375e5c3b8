import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { dryRun, ifMatch } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'replace-gradeable',
  method: 'PUT',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}',
  access: 'course:instructor',
  summary:
    "Replace a gradeable with gradeable JSON as download gives it (If-Match: the download's ETag). Its type, version control and teams cannot change once something was submitted or graded. With dry_run=true: checked, writing nothing.",
  data: {
    gradeables: ['BatchGetItem', 'UpdateItem'],
    submissions: ['Query'],
    teams: ['Query'],
    audit: ['PutItem'],
    // The linked LMS courses' check of the totals a replacement changes, in its transaction.
    webhookOutbox: ['PutItem'],
  },
  input: () => ({
    document: true,
    query: { dry_run: z.optional(dryRun()) },
    headers: { 'If-Match': z.optional(ifMatch()) },
  }),
});
