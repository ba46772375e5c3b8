import { route } from '#shared/http/routes.ts';
import { loginFields } from '#shared/http/lti-fields.ts';

export const definition = route({
  name: 'lti-login-form',
  method: 'POST',
  path: '/api/lti/login',
  access: 'public',
  summary:
    "LTI 1.3 third-party initiated login (as a form): finds the platform's registration and redirects the browser to its authorization endpoint with a fresh state and nonce (kept ten minutes, no cookie).",
  // The registration (by its id, or the issuer's one), and the login's state.
  data: { lti: ['GetItem', 'Query', 'PutItem'] },
  input: () => ({ body: loginFields() }),
});
