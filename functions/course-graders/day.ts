/** The deployed day's steps of `course-graders` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, NEW_COURSE, NEW_TERM, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "lists both courses' graders",
    phase: 'courses read',
    run: async () => {
      await call('GET', `/api/${TERM}/${COURSE}/graders`, { as: 'prof' });
      await call('GET', `/api/courses/${NEW_TERM}/${NEW_COURSE}/graders`, { as: 'prof' });
    },
  },
];
