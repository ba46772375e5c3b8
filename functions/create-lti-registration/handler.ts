import { endpoint } from '#shared/http/endpoint.ts';
import { registerPlatform } from '#shared/lti/manage.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ caller, headers, body }) => registerPlatform(body, caller.userId, apiBaseUrl(headers.Host, headers['X-Forwarded-Proto'])),
});
