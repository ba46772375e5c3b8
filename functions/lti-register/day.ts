/** The deployed day's steps of `lti-register` (test/deployed/day.ts says how the day runs them). */
import { pageTitle } from '#shared/http/platform-answers.ts';
import { checkedFetch } from '../../test/support/checked-fetch.ts';
import { fail, handedOn, stack, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title:
      "an LMS opens the admin's invitation with a configuration on this machine's own address: refused on a page naming why, the invitation still usable",
    phase: 'lti platform read',
    run: async () => {
      const invitation = new URL(handedOn.ltiInvitation ?? 'http://nowhere/api/lti/register?invitation=none');
      invitation.searchParams.set('openid_configuration', 'https://127.0.0.1/.well-known/openid-configuration');
      const answer = await checkedFetch(`${stack!.gateway.url}${invitation.pathname}${invitation.search}`, { redirect: 'manual' });
      const title = pageTitle(await answer.text());
      const expected =
        "The openid_configuration's host has the address 127.0.0.1, which is a loopback address; platforms are reached only on public addresses (or hosts LTI_ALLOWED_HOSTS names).";
      if (answer.status !== 400 || title !== expected) fail('GET /api/lti/register', `HTTP ${answer.status}: ${title ?? '(no title)'}`);
    },
  },
];
