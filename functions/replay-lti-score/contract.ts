/** What `replay-lti-score` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { scoreDeliveryChanged, scoreDeliveryNotFound, scoreDeliveryPending } from '#shared/lti/failures.ts';

const { LtiScoreDelivery } = components;

export const contract: RouteContract = {
  tag: 'LTI',
  data: LtiScoreDelivery,
  fails: [fail(scoreDeliveryNotFound), fail(scoreDeliveryPending), fail(scoreDeliveryChanged)],
};
