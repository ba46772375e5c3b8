/** The deployed day's steps of `ta-grade` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, QUIZ, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the limited access grader from the class list grades no section yet: refused',
    phase: 'quiz graded',
    run: async () => {
      await call('GET', `/api/${TERM}/${COURSE}/gradeable/${QUIZ}/grading/student`, {
        as: 'mentor',
        expect: { fail: 'You do not grade section 1.', status: 403 },
      });
    },
  },
  {
    title: "the instructor reads the student's TA grade, with both grades in its audit trail",
    phase: 'grades read',
    run: async () => {
      const grade = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${QUIZ}/grading/student`, { as: 'prof' });
      const history = (grade.json?.data?.history ?? []) as { grader_id: string; component_id: number }[];
      if (grade.json?.data && history.map((entry) => `${entry.grader_id}:${entry.component_id}`).join() !== 'ta:0,ta:1') {
        fail('read a TA grade', `the audit trail does not show both grades: ${grade.text.slice(0, 800)}`);
      }
    },
  },
];
