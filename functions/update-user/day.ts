/** The deployed day's steps of `update-user` (test/deployed/day.ts says how the day runs them). */
import { call, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the newcomer changes their name; the admin their email and level',
    phase: 'accounts changed',
    run: async () => {
      await call('PATCH', '/api/users/newcomer', { token: handedOn.newcomer, json: { first_name: 'Nina' } });
      await call('PATCH', '/api/users/newcomer', { as: 'admin', json: { email: 'nina@example.edu', level: 'faculty' } });
    },
  },
];
