import { endpoint } from '#shared/http/endpoint.ts';
import { changeAccount } from '#shared/users/accounts.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ caller, params, body }) => changeAccount(caller, params.user_id, body),
});
