/** The deployed day's steps of `unarchive-course` (test/deployed/day.ts says how the day runs them). */
import { call, NEW_COURSE, NEW_TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the admin unarchives it',
    phase: 'course unarchived',
    run: async () => {
      await call('POST', `/api/courses/${NEW_TERM}/${NEW_COURSE}/config/unarchive`, { as: 'admin', json: {} });
    },
  },
];
