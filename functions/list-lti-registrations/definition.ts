import { route } from '#shared/http/routes.ts';
import { baseUrlHeaders } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'list-lti-registrations',
  method: 'GET',
  path: '/api/lti/registrations',
  access: 'superuser',
  summary: 'Every LTI platform registered, with the tool URLs to enter in each (by registration id).',
  data: { lti: ['Query'] },
  input: () => ({ headers: baseUrlHeaders() }),
});
