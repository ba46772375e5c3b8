import { route } from '#shared/http/routes.ts';
import { baseUrlHeaders } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'get-lti-registration',
  method: 'GET',
  path: '/api/lti/registrations/{registration_id}',
  access: 'superuser',
  summary: 'One LTI platform registered, with the tool URLs to enter in it.',
  // Read with the token check.
  data: { lti: ['BatchGetItem'] },
  input: () => ({ headers: baseUrlHeaders() }),
});
