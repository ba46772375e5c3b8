/** The deployed day's steps of `delete-team` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, PAIR_PROJECT, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor deletes the team',
    phase: 'team deleted',
    run: async () => {
      await call('DELETE', `/api/${TERM}/${COURSE}/gradeable/${PAIR_PROJECT}/teams/pair1`, { as: 'prof' });
    },
  },
];
