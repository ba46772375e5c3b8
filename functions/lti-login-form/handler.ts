import { platformEndpoint } from '#shared/http/platform-answers.ts';
import { startLogin } from '#shared/lti/login.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { definition } from './definition.ts';

/** `POST /api/lti/login`: a redirect to the platform's authorization endpoint, or a page naming why not. */
export const handler = platformEndpoint(definition, async ({ body, host, forwardedProto }) => ({
  kind: 'redirect',
  status: 302,
  location: await startLogin(body, apiBaseUrl(host, forwardedProto)),
}));
