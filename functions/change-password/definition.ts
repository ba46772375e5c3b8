import { route } from '#shared/http/routes.ts';
import { MIN_PASSWORD_LENGTH } from '#shared/users/limits.ts';
import { text } from '#shared/http/fields.ts';
import { SIGN_IN_SETTINGS } from '#shared/config.ts';

export const definition = route({
  name: 'change-password',
  method: 'POST',
  path: '/api/me/password',
  access: 'user',
  summary:
    "Change the caller's own password: current_password and new_password (10 characters or more, not the user id, not a common password). A wrong current password counts as a failed login. The old token stops working; the answer carries a new one.",
  // The current password is checked as a login checks it (PASSWORD_LOGIN).
  settings: SIGN_IN_SETTINGS,
  data: {
    sessions: ['PutItem'],
    credentials: ['Query', 'UpdateItem', 'PutItem', 'ConditionCheckItem', 'DeleteItem'],
    audit: ['PutItem'],
    users: ['GetItem', 'ConditionCheckItem'],
  },
  input: () => ({
    body: {
      current_password: text(1024, { description: 'The password the caller has now.', format: 'password' }),
      new_password: text(1024, {
        description: `The new password: at least ${MIN_PASSWORD_LENGTH} characters, not the user id, not a common password.`,
        format: 'password',
      }),
    },
  }),
});
