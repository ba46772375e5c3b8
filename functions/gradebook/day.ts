/** The deployed day's steps of `gradebook` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, GRADEABLE, QUIZ, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the quiz's gradebook shows the TA grade; the grader reads the homework's",
    phase: 'grades read',
    run: async () => {
      const book = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${QUIZ}/gradebook`, { as: 'ta' });
      const rows = (book.json?.data?.students ?? []) as { user_id: string; tagrading_score: number | null }[];
      if (book.json?.data && rows.find((row) => row.user_id === 'student')?.tagrading_score !== 11.5)
        fail('gradebook', book.text.slice(0, 800));
      await call('GET', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/gradebook`, { as: 'mentor' });
    },
  },
];
