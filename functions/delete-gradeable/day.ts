/** The deployed day's steps of `delete-gradeable` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, MISTAKE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the mistaken gradeable deleted',
    phase: 'gradeable deleted',
    run: async () => {
      await call('DELETE', `/api/${TERM}/${COURSE}/gradeable/${MISTAKE.id}`, { as: 'prof' });
    },
  },
];
