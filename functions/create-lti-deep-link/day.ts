/** The deployed day's steps of `create-lti-deep-link` (test/deployed/day.ts says how the day runs them). */
import { call, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'an instructor with an API token, not a deep-linking launch session, cannot add gradeables to an LMS',
    phase: 'courses read',
    run: async () => {
      await call('POST', '/api/lti/deep-links', {
        as: 'prof',
        json: { gradeable_ids: ['hw1'] },
        expect: {
          fail: 'Gradeables are added to the LMS from a deep-linking launch: open the tool from where the LMS adds content (an assignment’s or activity’s external tool), then pick them.',
          status: 403,
        },
      });
    },
  },
];
