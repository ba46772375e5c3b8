import { hasLoginFields, loginForm } from '#shared/auth/login-form.ts';
import { invalidateToken, invalidateWithCredentials } from '#shared/auth/tokens.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

/** With user_id and password as in the reference; with only a valid token, a logout. */
export const handler = endpoint(definition, {
  handle: async ({ body, caller }) => {
    if (caller && !hasLoginFields(body)) {
      await invalidateToken(caller.token);
    } else {
      const { userId, password } = loginForm(body);
      await invalidateWithCredentials(userId, password, caller?.token);
    }
    return null;
  },
});
