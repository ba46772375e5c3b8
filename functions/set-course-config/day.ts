/** The deployed day's steps of `set-course-config` (test/deployed/day.ts says how the day runs them). */
import { call, fail, NEW_COURSE, NEW_TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a setting of the copied course set',
    phase: 'settings set',
    run: async () => {
      const set = await call('POST', `/api/courses/${NEW_TERM}/${NEW_COURSE}/config`, {
        as: 'prof',
        form: { name: 'course_name', entry: 'Next term’s course' },
      });
      if (set.json?.data && set.json.data.config?.course_name !== 'Next term’s course') fail('POST config', set.text.slice(0, 500));
    },
  },
];
