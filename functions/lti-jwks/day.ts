/** The deployed day's steps of `lti-jwks` (test/deployed/day.ts says how the day runs them). */
import { call, fail, stack, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title:
      "the operator gives the deployment its LTI keys with the admin command; the tool's key set publishes the current and the next key",
    phase: 'signed in',
    run: async () => {
      const output = await stack!.admin('rotate-lti-key');
      const [current, next] = [...output.matchAll(/([A-Za-z0-9_-]{16}) (?:signs|is published)/g)].map((match) => match[1]);
      const answer = await call('GET', '/api/lti/jwks', { expect: 'raw' });
      const kids = ((answer.json?.keys ?? []) as { kid?: string; d?: unknown }[]).map((key) =>
        key.d === undefined ? key.kid : 'a private key',
      );
      if (!current || JSON.stringify(kids) !== JSON.stringify([current, next]))
        fail('GET /api/lti/jwks', `not the keys the admin command made (${output.trim()}): ${answer.text.slice(0, 300)}`);
    },
  },
];
