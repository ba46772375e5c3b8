/** The deployed day's steps of `set-extension` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, GRADEABLE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor gives student2 an extension on the homework',
    phase: 'late days set',
    run: async () => {
      await call('PUT', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/extensions/student2`, {
        as: 'prof',
        json: { late_days: 2, reason_for_exception: 'Illness' },
      });
    },
  },
];
