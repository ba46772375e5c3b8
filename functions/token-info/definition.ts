import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'token-info',
  method: 'GET',
  path: '/api/token',
  access: 'user',
  summary:
    'Who the presented token belongs to, when it was issued and when it expires, and how it was obtained (password, oidc, or lti: a launch session, with what its launch opened).',
});
