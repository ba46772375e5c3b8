/** The deployed day's steps of `link-lti-context` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'an instructor with an API token, not a launch session, cannot link an LMS course',
    phase: 'courses read',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/lti/link`, {
        as: 'prof',
        json: { section: '1' },
        expect: {
          fail: 'An LMS course is linked from its instructor’s launch while it is not linked yet: open the tool from that LMS course, then link it.',
          status: 403,
        },
      });
    },
  },
];
