import { resetPassword } from '#shared/auth/accounts.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('set-user-password', {
  handle: ({ caller, params, body }) => resetPassword(caller, params.user_id, body.password),
});
