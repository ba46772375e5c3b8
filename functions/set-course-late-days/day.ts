/** The deployed day's steps of `set-course-late-days` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor sets the late-day budget every student starts with',
    phase: 'late days set',
    run: async () => {
      await call('PUT', `/api/${TERM}/${COURSE}/late-days`, { as: 'prof', json: { default_student_late_days: 3 } });
    },
  },
];
