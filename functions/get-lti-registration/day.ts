/** The deployed day's steps of `get-lti-registration` (test/deployed/day.ts says how the day runs them). */
import { call, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'reads one LTI platform to the admin',
    phase: 'lti platform read',
    run: async () => {
      await call('GET', `/api/lti/registrations/${handedOn.ltiRegistration ?? ''}`, { as: 'admin' });
    },
  },
];
