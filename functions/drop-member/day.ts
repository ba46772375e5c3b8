/** The deployed day's steps of `drop-member` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the late joiner drops the course',
    phase: 'member dropped',
    run: async () => {
      const dropped = await call('DELETE', `/api/${TERM}/${COURSE}/users/late.joiner`, { as: 'prof' });
      if (dropped.json?.data && dropped.json.data.member?.reg_section !== 'NULL') fail('drop a student', dropped.text);
    },
  },
];
