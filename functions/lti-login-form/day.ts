/** The deployed day's steps of `lti-login-form` (test/deployed/day.ts says how the day runs them). */
import { call, fail, stack, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title:
      "the platform's browser starts an LTI login with a form: redirected to the platform's authorization endpoint with a state and nonce",
    phase: 'lti platform read',
    run: async () => {
      const login = {
        iss: 'https://lms.day.example.edu',
        client_id: 'day-client',
        login_hint: 'day-student',
        target_link_uri: `${stack!.gateway.url}/api/lti/launch`,
      };
      const answer = await call('POST', '/api/lti/login', { form: login, expect: 'redirect' });
      const location = new URL(answer.headers.get('location') ?? '', 'http://nowhere');
      if (location.origin !== 'https://203.0.113.10' || !location.searchParams.get('state') || !location.searchParams.get('nonce'))
        fail('POST /api/lti/login', `not the platform's authorization endpoint with a state and nonce: ${location.href}`);
    },
  },
];
