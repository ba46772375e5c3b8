import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { similarityGradeableNotFound } from '#shared/similarity/failures.ts';
import { listSimilarityRuns, similarityRunIdsAsked, similarityRunsReads } from '#shared/similarity/runs.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => similarityRunsReads(params),
  alongside: ({ params, query }) => similarityRunIdsAsked(params, query),
  malformed: { gradeable_id: (gradeableId) => similarityGradeableNotFound({ gradeable_id: gradeableId }) },
  handle: async ({ params, items, query, url, alongside }) => {
    const { items: runs, next } = await listSimilarityRuns(params, items.gradeable, query, alongside);
    return paged(url, runs, next);
  },
});
