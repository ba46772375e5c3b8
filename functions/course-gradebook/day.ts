/** The deployed day's steps of `course-gradebook` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, QUIZ, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the course's gradebook shows the student's quiz TA grade; the grader reads it too",
    phase: 'grades read',
    run: async () => {
      const book = await call('GET', `/api/${TERM}/${COURSE}/gradebook`, { as: 'prof' });
      const rows = (book.json?.data?.students ?? []) as { user_id: string; gradeables: { gradeable_id: string; score: number }[] }[];
      const quiz = rows.find((row) => row.user_id === 'student')?.gradeables.find((cell) => cell.gradeable_id === QUIZ);
      if (book.json?.data && quiz?.score !== 11.5) fail('course gradebook', book.text.slice(0, 800));
      await call('GET', `/api/${TERM}/${COURSE}/gradebook`, { as: 'ta' });
    },
  },
];
