/** The deployed day's steps of `archive-course` (test/deployed/day.ts says how the day runs them). */
import { call, NEW_COURSE, NEW_TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor archives the copied course',
    phase: 'course archived',
    run: async () => {
      await call('POST', `/api/courses/${NEW_TERM}/${NEW_COURSE}/config/archive`, { as: 'prof', json: {} });
    },
  },
];
