/** What `gradeable-attempts` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, pageFails, type RouteContract } from '#shared/http/contract.ts';
import { noGradedGradeable, notSameUser } from '#shared/submissions/failures.ts';
import { notYourSection } from '#shared/tagrading/failures.ts';

const { Attempt } = components;

export const contract: RouteContract = {
  tag: 'Submissions',
  data: z.array(Attempt),
  fails: [gradeableNotFound, fail(notSameUser), fail(notYourSection), fail(noGradedGradeable), ...pageFails],
  successHeaders: ['Link'],
};
