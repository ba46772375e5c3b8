/** What `similarity-pair` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { similarityPairNotFound } from '#shared/similarity/failures.ts';

export const contract: RouteContract = { tag: 'Grading', data: components.SimilarityPairDetail, fails: [fail(similarityPairNotFound)] };
