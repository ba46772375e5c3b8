import { endpoint } from '#shared/http/endpoint.ts';
import { summariesJobReads, summariesJobStatus } from '#shared/summaries/job.ts';

export const handler = endpoint('summaries-job', {
  reads: ({ params }) => summariesJobReads(params),
  handle: ({ params, items }) => summariesJobStatus(params.job_id, items.job),
});
