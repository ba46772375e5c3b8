/** The deployed day's steps of `user-audit` (test/deployed/day.ts says how the day runs them). */
import { call, fail, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the newcomer's audit trail, newest first",
    phase: 'audit trails read',
    run: async () => {
      const trail = await call('GET', '/api/users/newcomer/audit', { as: 'admin' });
      const actions = ((trail.json?.data ?? []) as { action: string }[]).map((entry) => entry.action);
      if (trail.json?.data && actions.join() !== 'user.password-set,user.changed,user.changed,user.created')
        fail('GET /api/users/newcomer/audit', trail.text.slice(0, 800));
    },
  },
];
