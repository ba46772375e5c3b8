import { endpoint } from '#shared/http/endpoint.ts';
import { deepLink, deepLinkReads } from '#shared/lti/deep-links.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ userId }) => deepLinkReads(userId),
  handle: ({ caller, items, headers, body }) =>
    deepLink(caller, items.launch, body.gradeable_ids, apiBaseUrl(headers.Host, headers['X-Forwarded-Proto'])),
});
