/** The deployed day's steps of `list-lti-registrations` (test/deployed/day.ts says how the day runs them). */
import { call, fail, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'lists the LTI platforms to the admin',
    phase: 'lti platform read',
    run: async () => {
      const answer = await call('GET', '/api/lti/registrations', { as: 'admin' });
      const listed = (answer.json?.data as { registration_id: string }[] | undefined) ?? [];
      if (!listed.some((registration) => registration.registration_id === handedOn.ltiRegistration))
        fail('list LTI platforms', `the registered platform is not listed: ${answer.text.slice(0, 500)}`);
    },
  },
];
