/** What `gradeable-values` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import { noGradedGradeable, notSameUser } from '#shared/submissions/failures.ts';
import { notYourSection } from '#shared/tagrading/failures.ts';

const { Values } = components;

export const contract: RouteContract = {
  tag: 'Submissions',
  data: Values,
  fails: [gradeableNotFound, fail(notSameUser), fail(notYourSection), fail(noGradedGradeable)],
};
