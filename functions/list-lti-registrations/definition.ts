import { route } from '#shared/http/routes.ts';
import { baseUrlHeaders } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'list-lti-registrations',
  method: 'GET',
  path: '/api/lti/registrations',
  access: 'superuser',
  summary: 'Every LTI platform registered, by registration id, with the tool URLs to enter in each.',
  data: { lti: ['Query'] },
  input: () => ({ headers: baseUrlHeaders() }),
});
