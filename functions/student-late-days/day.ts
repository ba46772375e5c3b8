/** The deployed day's steps of `student-late-days` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, GRADEABLE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "a student's late-day table shows the course budget and their extension; a TA sees the other's grant",
    phase: 'late days read',
    run: async () => {
      const table = await call('GET', `/api/${TERM}/${COURSE}/late-days/student2`, { as: 'student2' });
      const entry = (table.json?.data?.gradeables ?? []).find((gradeable: { id: string }) => gradeable.id === GRADEABLE);
      if (table.json?.data && (table.json.data.default_student_late_days !== 3 || entry?.late_day_exceptions !== 2)) {
        fail('late-day table', table.text.slice(0, 800));
      }
      const granted = await call('GET', `/api/${TERM}/${COURSE}/late-days/student`, { as: 'ta' });
      if (granted.json?.data && granted.json.data.grants?.[0]?.allowed_late_days !== 5)
        fail('late-day table as ta', granted.text.slice(0, 800));
    },
  },
];
