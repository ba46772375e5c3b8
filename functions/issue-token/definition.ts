import { route } from '#shared/http/routes.ts';
import { text } from '#shared/http/fields.ts';

export const definition = route({
  name: 'issue-token',
  method: 'POST',
  path: '/api/token',
  access: 'public',
  summary: 'Log in with user_id and password; returns a token and invalidates the previous one.',
  data: { sessions: ['PutItem'], credentials: ['Query', 'UpdateItem', 'PutItem', 'ConditionCheckItem', 'DeleteItem'] },
  input: () => ({
    body: {
      user_id: text(256, { description: 'The user id.' }),
      password: text(1024, { description: 'The password.', format: 'password' }),
    },
  }),
});
