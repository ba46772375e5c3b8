import { endpoint } from '#shared/http/endpoint.ts';
import { changeAccount, noAccountNamed } from '#shared/users/accounts.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { user_id: (userId, { caller }) => noAccountNamed(caller, userId) },
  handle: ({ caller, params, body }) => changeAccount(caller, params.user_id, body),
});
