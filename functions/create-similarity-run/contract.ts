/** What `create-similarity-run` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  compareCourseNotYours,
  compareGradeableNotFound,
  compareTermLater,
  compareWithItself,
  similarityGradeableNotFound,
  similarityLanguageUnknown,
} from '#shared/similarity/failures.ts';

export const contract: RouteContract = {
  tag: 'Grading',
  data: components.SimilarityRun,
  fails: [
    fail(similarityGradeableNotFound),
    fail(similarityLanguageUnknown),
    fail(compareWithItself),
    fail(compareCourseNotYours),
    fail(compareTermLater),
    fail(compareGradeableNotFound),
  ],
};
