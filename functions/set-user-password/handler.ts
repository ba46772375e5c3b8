import { resetPassword } from '#shared/auth/accounts.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ caller, params, body }) => resetPassword(caller, params.user_id, body.password),
});
