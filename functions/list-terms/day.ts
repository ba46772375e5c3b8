/** The deployed day's steps of `list-terms` (test/deployed/day.ts says how the day runs them). */
import { call, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'lists the terms to a student',
    phase: 'accounts created',
    run: async () => {
      await call('GET', '/api/terms', { as: 'student' });
    },
  },
];
