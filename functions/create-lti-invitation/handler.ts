import { endpoint } from '#shared/http/endpoint.ts';
import { inviteRegistration } from '#shared/lti/dynamic-registration.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ caller, headers, body }) => inviteRegistration(body, caller.userId, apiBaseUrl(headers.Host, headers['X-Forwarded-Proto'])),
});
