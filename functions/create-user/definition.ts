import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { USER_ID } from '#shared/ids.ts';
import { LEVEL_NAMES, MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, MIN_PASSWORD_LENGTH } from '#shared/users/limits.ts';
import { documented, text } from '#shared/http/fields.ts';

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
      user_id: text(256, { description: 'The new user id.', pattern: USER_ID }),
      first_name: text(MAX_NAME_LENGTH, { description: 'First (given) name.' }),
      last_name: text(MAX_NAME_LENGTH, { description: 'Last (family) name.' }),
      email: text(MAX_EMAIL_LENGTH, { description: 'E-mail address.', format: 'email' }),
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
