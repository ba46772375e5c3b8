import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'api-docs',
  method: 'GET',
  path: '/api/docs',
  access: 'public',
  summary: 'This API’s reference page (HTML), rendered from the OpenAPI document, with "try it" calls against this server.',
});
