import { route } from '#shared/http/routes.ts';
import { SIGN_IN_SETTINGS } from '#shared/config.ts';

export const definition = route({
  name: 'auth-methods',
  method: 'GET',
  path: '/api/auth',
  access: 'public',
  summary:
    'The ways in this deployment offers: password logins (for everyone, superusers only, or nobody) and its OpenID Connect identity provider (issuer, client id and the scopes to ask for), for a client to sign in against the provider directly and send the ID token to POST /api/token.',
  // Tells clients the ways in.
  settings: SIGN_IN_SETTINGS,
});
