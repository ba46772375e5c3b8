/** The deployed day's steps of `list-lti-scores` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a course linked to no LMS course has no score deliveries',
    phase: 'courses read',
    run: async () => {
      const listed = await call('GET', `/api/${TERM}/${COURSE}/lti/scores?state=failed`, { as: 'prof' });
      if (listed.text !== '' && !listed.text.includes('"data":[]')) fail('GET …/lti/scores', listed.text.slice(0, 500));
    },
  },
];
