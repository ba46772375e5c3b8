/** What `list-lti-scores` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { fail, pageFails, type RouteContract } from '#shared/http/contract.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { badScoreDeliveryState } from '#shared/lti/failures.ts';

const { LtiScoreDelivery } = components;

export const contract: RouteContract = {
  tag: 'LTI',
  data: z.array(LtiScoreDelivery).describe('One page of deliveries, by gradeable, then student; a `Link` header names the next.'),
  fails: [fail(badScoreDeliveryState), fail(invalidGradeableId), ...pageFails],
  successHeaders: ['Link'],
};
