/** What `similarity-run` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, pageFails, type RouteContract } from '#shared/http/contract.ts';
import { similarityRunNotFound } from '#shared/similarity/failures.ts';

export const contract: RouteContract = {
  tag: 'Grading',
  data: components.SimilarityReport,
  fails: [fail(similarityRunNotFound), ...pageFails],
  successHeaders: ['Link'],
};
