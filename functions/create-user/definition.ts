import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { USER_ID } from '#shared/ids.ts';
import { LEVEL_NAMES, MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, MIN_PASSWORD_LENGTH } from '#shared/users/limits.ts';
import { documented, required, text } from '#shared/http/fields.ts';
import { userFieldsMissing } from '#shared/users/failures.ts';

export const definition = route({
  name: 'create-user',
  method: 'POST',
  path: '/api/users',
  access: 'superuser',
  summary:
    'Create a user account: user_id, first_name, last_name, email, level (user, faculty or superuser; user when left out) and password (generated and shown in this answer only when left out).',
  data: { users: ['PutItem'], credentials: ['PutItem'], audit: ['PutItem'] },
  input: () => ({
    body: {
      // Any of the four missing: one message for them all.
      user_id: required(text(256, { description: 'The new user id.', pattern: USER_ID }), userFieldsMissing),
      first_name: required(text(MAX_NAME_LENGTH, { description: 'First (given) name.' }), userFieldsMissing),
      last_name: required(text(MAX_NAME_LENGTH, { description: 'Last (family) name.' }), userFieldsMissing),
      email: required(text(MAX_EMAIL_LENGTH, { description: 'E-mail address.', format: 'email' }), userFieldsMissing),
      level: z.optional(documented(z.string(), { description: 'System access level (`user` when left out).', enum: [...LEVEL_NAMES] })),
      password: z.optional(
        text(1024, {
          description: `At least ${MIN_PASSWORD_LENGTH} characters, not the user id, not a common password; generated (and answered once) when left out.`,
          format: 'password',
        }),
      ),
    },
  }),
});
