import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('me', {
  handle: ({ caller }) => ({
    user_id: caller.userId,
    user_given_name: caller.givenName,
    user_family_name: caller.familyName,
  }),
});
