import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { text } from '#shared/http/fields.ts';
import { SIGN_IN_SETTINGS } from '#shared/config.ts';

export const definition = route({
  name: 'invalidate-token',
  method: 'POST',
  path: '/api/token/invalidate',
  access: 'token-optional',
  summary: "Invalidate the user's token, given user_id and password or the token itself.",
  // A password sent is checked as a login checks it (PASSWORD_LOGIN).
  settings: SIGN_IN_SETTINGS,
  data: {
    sessions: ['DeleteItem'],
    credentials: ['Query', 'UpdateItem', 'PutItem', 'ConditionCheckItem', 'DeleteItem'],
    users: ['GetItem'],
  },
  input: () => ({
    body: {
      user_id: z.optional(text(256, { description: 'The user id (not needed when a valid token is sent).' })),
      password: z.optional(text(1024, { description: 'The password (not needed when a valid token is sent).', format: 'password' })),
    },
  }),
});
