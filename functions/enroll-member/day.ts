/** The deployed day's steps of `enroll-member` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor gives the limited access grader section 1 over HTTP',
    phase: 'grader given a section',
    run: async () => {
      const enrolled = await call('PUT', `/api/${TERM}/${COURSE}/users/mentor`, {
        as: 'prof',
        json: { group: 'Limited Access Grader (Mentor)', grading_sections: ['1'] },
      });
      if (enrolled.json?.data && enrolled.json.data.group !== 'Limited Access Grader (Mentor)') fail('enrol the mentor', enrolled.text);
    },
  },
];
