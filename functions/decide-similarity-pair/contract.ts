/** What `decide-similarity-pair` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  decisionMissing,
  decisionUnknown,
  pairRevisionMissing,
  similarityPairChanged,
  similarityPairNotFound,
  similarityPairRace,
} from '#shared/similarity/failures.ts';

export const contract: RouteContract = {
  tag: 'Grading',
  data: components.SimilarityPair,
  fails: [
    fail(similarityPairNotFound),
    fail(decisionMissing),
    fail(pairRevisionMissing),
    fail(decisionUnknown),
    fail(similarityPairChanged),
    fail(similarityPairRace),
  ],
};
