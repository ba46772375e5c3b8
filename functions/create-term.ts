import { addTerm, termFromBody, termRecord } from '#shared/courses/terms.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('create-term', {
  handle: async ({ body }) => termRecord(await addTerm(termFromBody(body))),
});
