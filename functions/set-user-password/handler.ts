import { resetPassword } from '#shared/auth/accounts.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { noSuchUser } from '#shared/users/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { user_id: (userId) => noSuchUser({ user_id: userId }) },
  handle: ({ caller, params, body }) => resetPassword(caller, params.user_id, body.password),
});
