import { listTerms } from '#shared/courses/terms.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: () => listTerms(),
});
