import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { MIN_PASSWORD_LENGTH } from '#shared/users/limits.ts';
import { text } from '#shared/http/fields.ts';

export const definition = route({
  name: 'set-user-password',
  method: 'POST',
  path: '/api/users/{user_id}/password',
  access: 'superuser',
  summary: "Set a user's password (generated and shown in this answer only when left out); their token stops working.",
  data: { users: ['ConditionCheckItem'], credentials: ['PutItem'], sessions: ['DeleteItem'], audit: ['PutItem'] },
  input: () => ({
    body: {
      password: z.optional(
        text(1024, {
          description: `At least ${MIN_PASSWORD_LENGTH} characters, not the user id, not a common password; generated (and answered once) when left out.`,
          format: 'password',
        }),
      ),
    },
  }),
});
