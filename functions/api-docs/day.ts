/** The deployed day's steps of `api-docs` (test/deployed/day.ts says how the day runs them). */
import { call, fail, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'serves the reference page, naming its scripts and style sheets',
    phase: 'signed in',
    run: async () => {
      const page = await call('GET', '/api/docs', { expect: 'raw' });
      const assets = [...page.text.matchAll(/(?:src|href)="docs\/([^"]+)"/g)].map((match) => match[1]!);
      if (!page.text.includes('<div id="reference">') || assets.length < 2)
        fail('GET /api/docs', `not the reference page with its assets: ${page.text.slice(0, 500)}`);
      handedOn.docsAssets = assets;
    },
  },
];
