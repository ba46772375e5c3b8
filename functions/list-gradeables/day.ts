/** The deployed day's steps of `list-gradeables` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, GRADEABLE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'lists the homework to the student',
    phase: 'courses read',
    run: async () => {
      const listing = await call('GET', `/api/${TERM}/${COURSE}/gradeables`, { as: 'student' });
      if (listing.json?.data && !listing.json.data[GRADEABLE])
        fail('GET gradeables as student', `${GRADEABLE} is not listed: ${listing.text.slice(0, 800)}`);
    },
  },
];
