import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'lti-jwks',
  method: 'GET',
  path: '/api/lti/jwks',
  access: 'public',
  summary: "The LTI tool's public key set (JSON Web Key Set): the current key and the next, published before it signs.",
  ltiKey: 'read',
});
