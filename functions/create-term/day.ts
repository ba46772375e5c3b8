/** The deployed day's steps of `create-term` (test/deployed/day.ts says how the day runs them). */
import { call, date, NEW_TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the admin creates the next term',
    phase: 'terms',
    run: async () => {
      await call('POST', '/api/terms', {
        as: 'admin',
        json: { term_id: NEW_TERM, term_name: 'Spring Next', start_date: date(100), end_date: date(200) },
      });
    },
  },
];
