import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'list-terms',
  method: 'GET',
  path: '/api/terms',
  access: 'user',
  summary: 'Every term, newest first (by start date).',
  data: { terms: ['Scan'] },
});
