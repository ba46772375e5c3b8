/** The deployed day's steps of `set-user-password` (test/deployed/day.ts says how the day runs them). */
import { call, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the admin sets the newcomer's password: their token is refused afterwards",
    phase: 'passwords set',
    run: async () => {
      await call('POST', '/api/users/newcomer/password', { as: 'admin', json: {} });
      await call('GET', '/api/me', { token: handedOn.newcomer, expect: { fail: 'Unauthenticated access. Please log in.', status: 401 } });
    },
  },
];
