import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'summaries-job',
  method: 'GET',
  path: '/api/{semester}/{course}/reports/summaries/jobs/{job_id}',
  access: 'course:instructor',
  summary: 'A summaries job object with its progress now: queued, running, done (with its generation) or failed (with why).',
  data: { summaries: ['BatchGetItem'] },
});
