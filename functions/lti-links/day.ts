/** The deployed day's steps of `lti-links` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the course has no LMS course linked',
    phase: 'courses read',
    run: async () => {
      const links = await call('GET', `/api/${TERM}/${COURSE}/lti/link`, { as: 'prof' });
      if (links.text !== '' && !links.text.includes('"data":[]')) fail('GET …/lti/link', links.text.slice(0, 500));
    },
  },
];
