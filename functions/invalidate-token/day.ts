/** The deployed day's steps of `invalidate-token` (test/deployed/day.ts says how the day runs them). */
import { call, passwords, tokens, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'logs out: the old token is refused afterwards',
    phase: 'signed out',
    run: async () => {
      const token = tokens.student!;
      await call('POST', '/api/token/invalidate', { as: 'student' });
      await call('GET', '/api/me', { token, expect: { fail: 'Unauthenticated access. Please log in.', status: 401 } });
      // The reference's way: user id and password, for another user.
      await call('POST', '/api/token/invalidate', { form: { user_id: 'mentor', password: passwords.mentor ?? '' } });
      await call('GET', '/api/me', { token: tokens.mentor!, expect: { fail: 'Unauthenticated access. Please log in.', status: 401 } });
    },
  },
];
