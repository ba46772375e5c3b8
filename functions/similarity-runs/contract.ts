/** What `similarity-runs` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { fail, pageFails, type RouteContract } from '#shared/http/contract.ts';
import { similarityGradeableNotFound } from '#shared/similarity/failures.ts';

export const contract: RouteContract = {
  tag: 'Grading',
  data: z.array(components.SimilarityRunListed).describe('Newest first.'),
  fails: [fail(similarityGradeableNotFound), ...pageFails],
  successHeaders: ['Link'],
};
