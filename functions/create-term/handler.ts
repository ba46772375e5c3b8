import { addTerm, termFrom, termRecord } from '#shared/courses/terms.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ body }) =>
    termRecord(await addTerm(termFrom({ termId: body.term_id, name: body.term_name, startDate: body.start_date, endDate: body.end_date }))),
});
