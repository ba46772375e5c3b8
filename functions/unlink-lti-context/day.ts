/** The deployed day's steps of `unlink-lti-context` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'unlinking an LMS course the course is not linked to: not found',
    phase: 'courses read',
    run: async () => {
      await call('DELETE', `/api/${TERM}/${COURSE}/lti/link?registration_id=lti_none&context_id=none`, {
        as: 'prof',
        expect: { fail: 'The LMS course none is not linked to this course.', status: 404 },
      });
    },
  },
];
