/** The deployed day's steps of `lti-config` (test/deployed/day.ts says how the day runs them). */
import { call, fail, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "serves the LTI tool's configuration, naming its login, launch and key set URLs",
    phase: 'signed in',
    run: async () => {
      const answer = await call('GET', '/api/lti/config', { expect: 'raw' });
      if (!String(answer.json?.oidc_initiation_url ?? '').endsWith('/api/lti/login'))
        fail('GET /api/lti/config', `not the tool's configuration: ${answer.text.slice(0, 200)}`);
    },
  },
];
