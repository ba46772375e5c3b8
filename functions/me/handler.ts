import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ caller }) => ({
    user_id: caller.userId,
    user_given_name: caller.givenName,
    user_family_name: caller.familyName,
  }),
});
