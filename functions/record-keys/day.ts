/** The deployed day's steps of `record-keys` (test/deployed/day.ts says how the day runs them). */
import { call, fail, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'publishes the grading records’ public keys as a JWK Set',
    phase: 'signed in',
    run: async () => {
      const jwks = await call('GET', '/api/records/jwks', { expect: 'raw' });
      const keys = jwks.json as { keys?: { kty?: unknown; kid?: unknown }[] } | undefined;
      if (!keys?.keys?.length || keys.keys.some((key) => key.kty !== 'OKP' || typeof key.kid !== 'string'))
        fail('GET /api/records/jwks', `not a JWK Set of Ed25519 keys: ${jwks.text.slice(0, 500)}`);
      if (!jwks.headers.get('cache-control')?.includes('public')) fail('GET /api/records/jwks', 'not cacheable');
    },
  },
];
