/** The deployed day's steps of `course-users` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, NEW_COURSE, NEW_TERM, personas, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "lists everyone of the class list and the instructor; staff of the base course read the new course's",
    phase: 'courses read',
    run: async () => {
      const users = await call('GET', `/api/${TERM}/${COURSE}/users`, { as: 'prof' });
      if (
        users.json?.data &&
        (users.json.data as unknown[]).length !== Object.values(personas).filter((persona) => persona.group).length + 1
      ) {
        fail(`GET /api/${TERM}/${COURSE}/users`, `expected everyone of the class list and the instructor: ${users.text.slice(0, 800)}`);
      }
      // Staff of the base course read the new course of the same access group.
      await call('GET', `/api/courses/${NEW_TERM}/${NEW_COURSE}/users`, { as: 'ta' });
    },
  },
];
