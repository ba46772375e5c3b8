import { endpoint } from '#shared/http/endpoint.ts';
import { courseLinks } from '#shared/lti/links.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course }) => courseLinks(course),
});
