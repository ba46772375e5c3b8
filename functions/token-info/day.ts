/** The deployed day's steps of `token-info` (test/deployed/day.ts says how the day runs them). */
import { call, fail, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "says whose token the student's is, and that it came from the identity provider",
    phase: 'identity read',
    run: async () => {
      const info = await call('GET', '/api/token', { as: 'student' });
      if (info.json?.data && (info.json.data.user_id !== 'student' || info.json.data.method !== 'oidc')) {
        fail('GET /api/token', `names ${info.text}`);
      }
    },
  },
];
