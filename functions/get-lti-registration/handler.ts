import { endpoint } from '#shared/http/endpoint.ts';
import { registrationAnswer, registrationReads } from '#shared/lti/manage.ts';
import { registrationNotFound } from '#shared/lti/failures.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { registration_id: (registrationId) => registrationNotFound({ registration_id: registrationId }) },
  reads: ({ params }) => registrationReads(params.registration_id),
  handle: ({ params, headers, items }) =>
    registrationAnswer(items.registration, params.registration_id, apiBaseUrl(headers.Host, headers['X-Forwarded-Proto'])),
});
