import { endpoint } from '#shared/http/endpoint.ts';
import { listRegistrations } from '#shared/lti/manage.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ headers }) => listRegistrations(apiBaseUrl(headers.Host, headers['X-Forwarded-Proto'])),
});
