/** The deployed day's steps of `publish-lti-scores` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, GRADEABLE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'an instructor cannot publish the grades of a course linked to no LMS course',
    phase: 'courses read',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/lti/publish`, {
        as: 'prof',
        expect: {
          fail: "This course is linked to no LMS course that takes scores: an instructor's launch from an LMS course with a grade service links it (POST …/lti/link).",
          status: 409,
        },
      });
    },
  },
  {
    title: "the instructor publishes the gradeable's grades to the linked LMS course again: both students' grades queued",
    phase: 'lms scores replayed',
    builds: true,
    run: async () => {
      const published = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/lti/publish`, { as: 'prof' });
      const data = published.json?.data as { queued?: number; lms_courses?: number } | undefined;
      if (data?.queued !== 2 || data.lms_courses !== 1) fail('publish the grades again', published.text.slice(0, 500));
    },
  },
];
