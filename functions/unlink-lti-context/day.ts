/** The deployed day's steps of `unlink-lti-context` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

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
  {
    title: 'the instructor unlinks the LMS course: its grades and nightly roster syncs stop',
    phase: 'lms course unlinked',
    run: async () => {
      const link = handedOn.lmsLink;
      if (!link) return fail('unlink the LMS course', 'no LMS course was linked');
      const query = new URLSearchParams({ registration_id: link.registration_id, context_id: link.context_id });
      await call('DELETE', `/api/${TERM}/${COURSE}/lti/link?${query}`, { as: 'prof' });
      const links = await call('GET', `/api/${TERM}/${COURSE}/lti/link`, { as: 'prof' });
      if (!links.text.includes('"data":[]')) fail('GET …/lti/link after unlinking', links.text.slice(0, 500));
    },
  },
];
