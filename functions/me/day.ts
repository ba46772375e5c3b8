/** The deployed day's steps of `me` (test/deployed/day.ts says how the day runs them). */
import { expect } from 'vitest';
import { call, fail, personas, stack, type RouteDay, type PersonaName } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'names every persona to themselves',
    phase: 'identity read',
    run: async () => {
      for (const persona of Object.keys(personas) as PersonaName[]) {
        const me = await call('GET', '/api/me', { as: persona });
        if (me.json?.data && me.json.data.user_id !== persona) fail(`GET /api/me as ${persona}`, me.text);
      }
    },
  },
  {
    title: 'a deadline rush: 300 requests at once on one route all reach its function, none throttled by the stage',
    phase: 'identity read',
    timeoutMs: 120_000,
    run: async () => {
      // The stage throttles each route alike (its default route settings), so one route stands for the
      // submission route; students submitting at once before a deadline must not meet API Gateway's 429.
      const answers = await Promise.all(Array.from({ length: 300 }, () => call('GET', '/api/me', { as: 'student' })));
      expect(answers.filter((answer) => answer.status === 429).length, 'answers 429 Too Many Requests').toBe(0);
      expect(
        stack!.deployment.api!.routes.every((route) => route.throttle !== undefined),
        'every route is throttled',
      ).toBe(true);
    },
  },
];
