/** The deployed day's steps of `lti-launch` (test/deployed/day.ts says how the day runs them). */
import { call, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a launch whose state no login issued: an HTML page saying so, nothing written',
    phase: 'lti platform read',
    run: async () => {
      await call('POST', '/api/lti/launch', {
        form: { id_token: 'not.a.token', state: 'a-state-nobody-issued' },
        expect: {
          page: "This launch's state is unknown, used already or older than ten minutes: open the tool again from the LMS.",
          status: 400,
        },
      });
    },
  },
];
