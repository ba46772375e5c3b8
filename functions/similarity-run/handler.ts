import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { similarityRunNotFound } from '#shared/similarity/failures.ts';
import { similarityRunReads, similarityRunReport } from '#shared/similarity/runs.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => similarityRunReads(params),
  malformed: {
    gradeable_id: (gradeableId, { url }) => similarityRunNotFound({ run_id: url.rawPath.slice(url.rawPath.lastIndexOf('/') + 1) }),
    run_id: (runId) => similarityRunNotFound({ run_id: runId }),
  },
  handle: async ({ params, items, query, url }) => {
    const { data, next } = await similarityRunReport(params, items.run, query);
    return paged(url, data, next);
  },
});
