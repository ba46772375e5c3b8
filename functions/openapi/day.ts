/** The deployed day's steps of `openapi` (test/deployed/day.ts says how the day runs them). */
import { call, fail, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'serves the OpenAPI 3.1 document',
    phase: 'signed in',
    run: async () => {
      const openapi = await call('GET', '/api/openapi.json', { expect: 'raw' });
      if (!String(openapi.json?.openapi ?? '').startsWith('3.1'))
        fail('GET /api/openapi.json', `not an OpenAPI 3.1 document: ${openapi.text.slice(0, 200)}`);
    },
  },
];
