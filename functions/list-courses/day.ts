/** The deployed day's steps of `list-courses` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "lists the student's courses, and a student's courses to the admin",
    phase: 'terms',
    run: async () => {
      const mine = await call('GET', '/api/courses', { as: 'student' });
      const listed = (mine.json?.data?.unarchived_courses ?? []) as { semester?: string; title?: string }[];
      if (mine.json?.data && !JSON.stringify(listed).includes(`"${COURSE}"`))
        fail('GET /api/courses as student', `the course is missing: ${mine.text}`);
      await call('GET', '/api/courses?user_id=student', { as: 'admin' });
    },
  },
];
