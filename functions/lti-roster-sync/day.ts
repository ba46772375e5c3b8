/** The deployed day's steps of `lti-roster-sync` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'an instructor cannot sync the roster of a course linked to no LMS course',
    phase: 'courses read',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/lti/roster-sync`, {
        as: 'prof',
        json: { dry_run: true },
        expect: {
          fail: "This course is linked to no LMS course with a roster service: an instructor's launch from the LMS course links it (POST …/lti/link).",
          status: 409,
        },
      });
    },
  },
];
