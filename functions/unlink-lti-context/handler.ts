import { endpoint } from '#shared/http/endpoint.ts';
import { unlinkContext } from '#shared/lti/links.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, caller, query }) => unlinkContext(course, caller.userId, query.registration_id, query.context_id),
});
