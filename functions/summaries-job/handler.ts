import { endpoint } from '#shared/http/endpoint.ts';
import { summariesJobReads, summariesJobStatus } from '#shared/summaries/job.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => summariesJobReads(params),
  handle: ({ params, items }) => summariesJobStatus(params.job_id, items.job),
});
