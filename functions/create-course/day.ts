/** The deployed day's steps of `create-course` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, NEW_COURSE, NEW_TERM, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor copies the base course into the next term, with its gradeables',
    phase: 'course copied',
    run: async () => {
      await call('POST', '/api/courses', {
        as: 'prof',
        form: {
          course_semester: NEW_TERM,
          course_title: NEW_COURSE,
          head_instructor: 'prof',
          base_course_semester: TERM,
          base_course_title: COURSE,
          copy_gradeables: 'true',
        },
      });
    },
  },
];
