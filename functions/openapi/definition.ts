import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'openapi',
  method: 'GET',
  path: '/api/openapi.json',
  access: 'public',
  summary: 'This API as an OpenAPI 3.1 document (served as is, not in an envelope).',
});
