/** The deployed day's steps of `save-ta-grade` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, QUIZ, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "a TA scores the quiz's first component",
    phase: 'quiz graded',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/gradeable/${QUIZ}/grading/student`, {
        as: 'ta',
        json: { component_id: 0, custom_points: 7 },
      });
    },
  },
  {
    title: 'the TA scores its second component',
    phase: 'quiz graded again',
    run: async () => {
      const saved = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${QUIZ}/grading/student`, {
        as: 'ta',
        json: { component_id: 1, custom_points: 4.5 },
      });
      if (saved.json?.data && saved.json.data.tagrading_score !== 11.5) fail('save a TA grade', saved.text.slice(0, 500));
    },
  },
  {
    title: 'the limited access grader, given section 1, grades its student: component 1 again, with the same points',
    phase: 'quiz graded by the grader',
    run: async () => {
      const mentored = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${QUIZ}/grading/student`, {
        as: 'mentor',
        json: { component_id: 1, custom_points: 4.5 },
      });
      if (mentored.json?.data && mentored.json.data.tagrading_score !== 11.5) fail('the mentor grades', mentored.text.slice(0, 500));
    },
  },
];
