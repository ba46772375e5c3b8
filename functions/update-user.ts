import { endpoint } from '#shared/http/endpoint.ts';
import { changeAccount } from '#shared/users/accounts.ts';

export const handler = endpoint('update-user', {
  handle: ({ caller, params, body }) => changeAccount(caller, params.user_id, body),
});
