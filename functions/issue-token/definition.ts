import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { text } from '#shared/http/fields.ts';
import { SIGN_IN_SETTINGS } from '#shared/config.ts';

export const definition = route({
  name: 'issue-token',
  method: 'POST',
  path: '/api/token',
  access: 'public',
  summary:
    "Log in with user_id and password, or with id_token (an ID token of the deployment's identity provider, see GET /api/auth); returns a token and invalidates the previous one. With lti_code (what an LTI launch answered): a launch session instead, apart from the API token, held to the launched course, for at most eight hours.",
  // Checks ID tokens and passwords by the sign-in settings.
  settings: SIGN_IN_SETTINGS,
  data: {
    sessions: ['PutItem'],
    // An LTI launch code: read, then consumed in the launch session's transaction.
    lti: ['BatchGetItem', 'DeleteItem'],
    credentials: ['Query', 'UpdateItem', 'PutItem', 'ConditionCheckItem', 'DeleteItem'],
    // Signing in with an ID token: the user must exist (or is created, with an audit entry, when the deployment says so),
    // and is linked to the token's identity at their first sign-in.
    users: ['GetItem', 'PutItem', 'ConditionCheckItem', 'UpdateItem'],
    audit: ['PutItem'],
  },
  input: () => ({
    body: {
      user_id: text(256, { description: 'The user id.' }),
      password: text(1024, { description: 'The password.', format: 'password' }),
      id_token: z.optional(
        text(16_384, {
          description:
            "Instead of user_id and password: an OpenID Connect ID token the deployment's identity provider issued for its client id.",
        }),
      ),
      nonce: z.optional(
        text(256, { description: 'With id_token: the nonce the client sent the identity provider; the ID token must carry it.' }),
      ),
      lti_code: z.optional(
        text(256, {
          description:
            'Instead of the others: the one-time code an LTI launch answered (`#lti_code=` in the frontend URL), within 60 seconds; answers a launch session.',
        }),
      ),
    },
  }),
});
