import { endpoint } from '#shared/http/endpoint.ts';
import { similarityGradeableNotFound } from '#shared/similarity/failures.ts';
import { requestSimilarityRun, similarityRunRequestReads } from '#shared/similarity/runs.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => similarityRunRequestReads(params),
  malformed: { gradeable_id: (gradeableId) => similarityGradeableNotFound({ gradeable_id: gradeableId }) },
  handle: ({ caller, course, params, items, body }) =>
    requestSimilarityRun({ caller, course, gradeableId: params.gradeable_id, gradeable: items.gradeable, body }),
});
