import { endpoint } from '#shared/http/endpoint.ts';
import { removeRegistration } from '#shared/lti/manage.ts';
import { registrationNotFound } from '#shared/lti/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { registration_id: (registrationId) => registrationNotFound({ registration_id: registrationId }) },
  handle: ({ params }) => removeRegistration(params.registration_id),
});
