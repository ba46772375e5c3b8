import { endpoint } from '#shared/http/endpoint.ts';
import { similarityPairNotFound } from '#shared/similarity/failures.ts';
import { similarityPairDetail, similarityPairReads } from '#shared/similarity/review.ts';
import { definition } from './definition.ts';

const notFound = (value: string, { url }: { url: { rawPath: string } }) => {
  const [runId = '', , pairId = ''] = url.rawPath.split('/').slice(-3);
  return similarityPairNotFound({ pair_id: pairId || value, run_id: runId });
};

export const handler = endpoint(definition, {
  reads: ({ params }) => similarityPairReads(params),
  malformed: { gradeable_id: notFound, run_id: notFound, pair_id: notFound },
  handle: ({ params, items }) => similarityPairDetail(params, items.pair),
});
