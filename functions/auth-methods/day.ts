/** The deployed day's steps of `auth-methods` (test/deployed/day.ts says how the day runs them). */
import { call, fail, identityProvider, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'names the identity provider among the ways in',
    phase: 'signed in',
    run: async () => {
      const ways = await call('GET', '/api/auth');
      if (ways.json?.data?.oidc?.issuer !== identityProvider.issuer) fail('GET /api/auth', `names no identity provider: ${ways.text}`);
    },
  },
];
