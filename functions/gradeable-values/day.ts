/** The deployed day's steps of `gradeable-values` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, QUIZ, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the student reads their quiz's TA grade",
    phase: 'grades read',
    run: async () => {
      const quiz = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${QUIZ}/values`, { as: 'student' });
      if (quiz.json?.data && quiz.json.data.tagrading_score !== 11.5) fail('quiz values as student', quiz.text.slice(0, 500));
    },
  },
];
