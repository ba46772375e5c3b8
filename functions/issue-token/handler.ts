import { loginForm } from '#shared/auth/login-form.ts';
import { issueToken } from '#shared/auth/tokens.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ body, event }) => {
    const { userId, password } = loginForm(body);
    return { token: await issueToken(userId, password, event.headers?.authorization) };
  },
});
