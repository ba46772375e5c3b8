import { endpoint } from '#shared/http/endpoint.ts';
import { readAccount } from '#shared/users/accounts.ts';
import { userRecord } from '#shared/users/profile.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ caller, params }) => userRecord(await readAccount(caller, params.user_id)),
});
