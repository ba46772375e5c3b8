/** The deployed day's steps of `grant-late-days` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor grants the student late days',
    phase: 'late days set',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/late-days/student`, { as: 'prof', form: { allowed_late_days: '5', since: '2026-09-01' } });
    },
  },
];
