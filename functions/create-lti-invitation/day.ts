/** The deployed day's steps of `create-lti-invitation` (test/deployed/day.ts says how the day runs them). */
import { call, fail, handedOn, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the admin invites an LMS to register itself, and is given the URL to paste in it',
    phase: 'lti platform registered',
    run: async () => {
      const answer = await call('POST', '/api/lti/registrations/invitations', { as: 'admin', json: { label: 'The day LMS, by itself' } });
      const url = (answer.json?.data as { url?: string } | undefined)?.url;
      if (!url?.includes('/api/lti/register?invitation=')) fail('invite an LMS', `no invitation URL: ${answer.text.slice(0, 500)}`);
      handedOn.ltiInvitation = url;
    },
  },
];
