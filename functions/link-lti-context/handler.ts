import { endpoint } from '#shared/http/endpoint.ts';
import { linkContext, linkReads } from '#shared/lti/links.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ userId }) => linkReads(userId),
  handle: ({ course, caller, items, body }) => linkContext(course, caller, items.launch, body.section || null),
});
