/** The deployed day's steps of `delete-lti-registration` (test/deployed/day.ts says how the day runs them). */
import { call, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the admin removes the LTI platform, which is then not found',
    phase: 'lti platform removed',
    run: async () => {
      const path = `/api/lti/registrations/${handedOn.ltiRegistration ?? ''}`;
      await call('DELETE', path, { as: 'admin' });
      await call('GET', path, { as: 'admin', expect: { fail: `No LTI registration ${handedOn.ltiRegistration ?? ''}.`, status: 404 } });
    },
  },
];
