import { linkIdentity, noAccountToLink } from '#shared/auth/identity-link.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { user_id: noAccountToLink },
  handle: ({ caller, params, body }) => linkIdentity(caller, params.user_id, body.subject),
});
