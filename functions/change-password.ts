import { changeMyPassword } from '#shared/auth/accounts.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('change-password', {
  handle: ({ caller, body }) => changeMyPassword(caller.token, body),
});
