import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'me',
  method: 'GET',
  path: '/api/me',
  access: 'user',
  summary: "The caller's user id and names.",
});
