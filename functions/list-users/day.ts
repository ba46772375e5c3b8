/** The deployed day's steps of `list-users` (test/deployed/day.ts says how the day runs them). */
import { call, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'lists user accounts to the admin, a page at a time',
    phase: 'accounts created',
    run: async () => {
      await call('GET', '/api/users?page_size=2', { as: 'admin' });
    },
  },
];
