import { listTerms } from '#shared/courses/terms.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('list-terms', {
  handle: () => listTerms(),
});
