/** The deployed day's steps of `get-user` (test/deployed/day.ts says how the day runs them). */
import { call, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the newcomer reads their own account',
    phase: 'accounts read',
    run: async () => {
      await call('GET', '/api/users/newcomer', { token: handedOn.newcomer });
    },
  },
];
