/** The deployed day's steps of `link-identity` (test/deployed/day.ts says how the day runs them). */
import { call, fail, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the sign-in linked the student's account to their identity; the admin links it to another and back",
    phase: 'identity read',
    run: async () => {
      await call('PUT', '/api/users/student/identity', { as: 'admin', json: { subject: 'student-renamed' } });
      const relinked = await call('PUT', '/api/users/student/identity', { as: 'admin', json: { subject: 'student' } });
      if (relinked.json?.data && relinked.json.data.subject !== 'student') fail('PUT /api/users/student/identity', relinked.text);
    },
  },
];
