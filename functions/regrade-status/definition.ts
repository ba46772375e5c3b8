import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'regrade-status',
  method: 'GET',
  path: '/api/{semester}/{course}/regrades/{regrade_id}',
  access: 'course:instructor',
  summary: 'A regrade job object with its progress now: queued, running or done, and how many versions were graded, failed or skipped.',
  data: { jobs: ['BatchGetItem'] },
});
