/** The deployed day's steps of `user-summary` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a student reads their own summary; the instructor another',
    phase: 'summaries read',
    run: async () => {
      const own = await call('GET', `/api/${TERM}/${COURSE}/reports/summaries/student`, { as: 'student' });
      if (own.json?.data && own.json.data.user_id !== 'student') fail('user summary as student', own.text.slice(0, 500));
      await call('GET', `/api/courses/${TERM}/${COURSE}/reports/summaries/student2`, { as: 'prof' });
    },
  },
];
