import { platformEndpoint } from '#shared/http/platform-answers.ts';
import { REGISTERED_PAGE, registerByInvitation } from '#shared/lti/dynamic-registration.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { definition } from './definition.ts';

/** `GET /api/lti/register`: the page that closes the LMS's registration window, or a page naming why not. */
export const handler = platformEndpoint(definition, async ({ query, host, forwardedProto }) => {
  await registerByInvitation(query, apiBaseUrl(host, forwardedProto));
  return { kind: 'page', ...REGISTERED_PAGE };
});
