import { endpoint } from '#shared/http/endpoint.ts';
import { noAccountNamed, readAccount } from '#shared/users/accounts.ts';
import { userRecord } from '#shared/users/profile.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { user_id: (userId, { caller }) => noAccountNamed(caller, userId) },
  handle: async ({ caller, params }) => userRecord(await readAccount(caller, params.user_id)),
});
