import { regradeNotFound } from '#shared/grading/failures.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { regradeStatus, regradeStatusReads } from '#shared/grading/regrade.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => regradeStatusReads(params.regrade_id),
  malformed: { regrade_id: (regradeId) => regradeNotFound({ regrade_id: regradeId }) },
  handle: ({ course, params, items }) => regradeStatus(course, params.regrade_id, items),
});
