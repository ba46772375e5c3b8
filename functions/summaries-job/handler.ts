import { endpoint } from '#shared/http/endpoint.ts';
import { summariesJobNotFound } from '#shared/summaries/failures.ts';
import { summariesJobReads, summariesJobStatus } from '#shared/summaries/job.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => summariesJobReads(params),
  malformed: { job_id: (jobId) => summariesJobNotFound({ job_id: jobId }) },
  handle: ({ params, items }) => summariesJobStatus(params.job_id, items.job),
});
