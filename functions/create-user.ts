import { createAccount } from '#shared/auth/accounts.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('create-user', {
  handle: ({ caller, body }) => createAccount(caller, body),
});
