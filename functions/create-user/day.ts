/** The deployed day's steps of `create-user` (test/deployed/day.ts says how the day runs them). */
import { call, fail, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the admin creates an account, whose generated password logs its owner in',
    phase: 'accounts created',
    run: async () => {
      const created = await call('POST', '/api/users', {
        as: 'admin',
        json: { user_id: 'newcomer', first_name: 'Nia', last_name: 'Newcomer', email: 'newcomer@example.edu' },
      });
      const generated = created.json?.data?.password as string | undefined;
      if (created.json?.data && !generated) fail('POST /api/users', `no generated password: ${created.text}`);
      const login = await call('POST', '/api/token', { form: { user_id: 'newcomer', password: generated ?? '' } });
      handedOn.newcomer = login.json?.data?.token as string | undefined;
    },
  },
];
