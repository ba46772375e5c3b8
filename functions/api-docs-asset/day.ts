/** The deployed day's steps of `api-docs-asset` (test/deployed/day.ts says how the day runs them). */
import { call, fail, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'serves every script and style sheet the reference page loads, from the API itself',
    phase: 'identity read',
    run: async () => {
      for (const asset of handedOn.docsAssets ?? []) {
        const answer = await call('GET', `/api/docs/${asset}`, { expect: 'raw', headers: { 'Accept-Encoding': 'gzip' } });
        if (answer.status === 200 && answer.text.length < 1000)
          fail(`GET /api/docs/${asset}`, `a short asset: ${answer.text.slice(0, 200)}`);
      }
    },
  },
];
