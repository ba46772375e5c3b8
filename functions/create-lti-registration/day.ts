/** The deployed day's steps of `create-lti-registration` (test/deployed/day.ts says how the day runs them). */
import { call, fail, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the admin registers an LTI platform (on a public address) and is given the tool URLs to enter in it',
    phase: 'lti platform registered',
    run: async () => {
      const answer = await call('POST', '/api/lti/registrations', {
        as: 'admin',
        json: {
          issuer: 'https://lms.day.example.edu',
          client_id: 'day-client',
          auth_login_url: 'https://203.0.113.10/auth',
          auth_token_url: 'https://203.0.113.10/token',
          jwks_url: 'https://203.0.113.10/jwks',
          label: 'The day LMS',
        },
      });
      const data = answer.json?.data as { registration_id?: string; tool?: { login_url?: string } } | undefined;
      if (!data?.registration_id || !data.tool?.login_url?.endsWith('/api/lti/login'))
        fail('register an LTI platform', `no registration id and tool URLs: ${answer.text.slice(0, 500)}`);
      handedOn.ltiRegistration = data?.registration_id;
    },
  },
];
