/** The deployed day's steps of `course-audit` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the course's audit trail",
    phase: 'audit trails read',
    run: async () => {
      await call('GET', `/api/${TERM}/${COURSE}/audit`, { as: 'prof' });
    },
  },
];
