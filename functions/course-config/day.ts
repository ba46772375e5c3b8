/** The deployed day's steps of `course-config` (test/deployed/day.ts says how the day runs them). */
import { call, NEW_COURSE, NEW_TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the copied course's settings",
    phase: 'settings set',
    run: async () => {
      await call('GET', `/api/courses/${NEW_TERM}/${NEW_COURSE}/config`, { as: 'prof' });
    },
  },
];
