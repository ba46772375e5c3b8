import { endpoint } from '#shared/http/endpoint.ts';
import { similarityPairNotFound } from '#shared/similarity/failures.ts';
import { decideSimilarityPairOf, similarityPairReads } from '#shared/similarity/review.ts';
import { definition } from './definition.ts';

const notFound = (value: string, { url }: { url: { rawPath: string } }) => {
  const [runId = '', , pairId = ''] = url.rawPath.split('/').slice(-3);
  return similarityPairNotFound({ pair_id: pairId || value, run_id: runId });
};

export const handler = endpoint(definition, {
  reads: ({ params }) => similarityPairReads(params),
  malformed: { gradeable_id: notFound, run_id: notFound, pair_id: notFound },
  handle: ({ caller, params, items, body }) => decideSimilarityPairOf({ caller, params, pair: items.pair, body }),
});
