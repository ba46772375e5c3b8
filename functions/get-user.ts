import { endpoint } from '#shared/http/endpoint.ts';
import { readAccount } from '#shared/users/accounts.ts';
import { userRecord } from '#shared/users/profile.ts';

export const handler = endpoint('get-user', {
  handle: async ({ caller, params }) => userRecord(await readAccount(caller, params.user_id)),
});
