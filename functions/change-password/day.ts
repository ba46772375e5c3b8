/** The deployed day's steps of `change-password` (test/deployed/day.ts says how the day runs them). */
import { call, passwords, tokens, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a student changes the password the class-list import printed for them: their old token is refused',
    phase: 'accounts created',
    run: async () => {
      const newPassword = `my own passphrase ${Math.random().toString(36).slice(2)}`;
      const changed = await call('POST', '/api/me/password', {
        as: 'student',
        json: { current_password: passwords.student ?? '', new_password: newPassword },
      });
      if (typeof changed.json?.data?.token === 'string') {
        await call('GET', '/api/me', { as: 'student', expect: { fail: 'Unauthenticated access. Please log in.', status: 401 } });
        passwords.student = newPassword;
        tokens.student = changed.json.data.token;
      }
      await call('GET', '/api/me', { as: 'student' });
    },
  },
];
