import { route } from '#shared/http/routes.ts';
import { EXPORT_URL_SECONDS } from '#shared/gradebook/export-limits.ts';

export const definition = route({
  name: 'gradebook-export',
  method: 'GET',
  path: '/api/{semester}/{course}/gradebook/exports/{export_id}',
  access: 'course:staff',
  summary: `A gradebook export the caller asked for, now: queued, running, done (with a download link to its CSV, working for ${EXPORT_URL_SECONDS / 60} minutes; ask again for a new one) or failed (with why). Anyone else's export reads as none.`,
  data: { summaries: ['BatchGetItem'] },
  objects: { exports: ['GetObject'] },
});
