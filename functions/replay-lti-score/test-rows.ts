/** What the cross-cutting tests expect of `replay-lti-score` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

/** A well-formed delivery id naming no delivery (`ls_` and base64url of `["hw","nobody","lti_x","ctx"]`). */
const NO_DELIVERY = `ls_${Buffer.from(JSON.stringify(['hw', 'nobody', 'lti_x', 'ctx'])).toString('base64url')}`;

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem lti',
    'dynamodb:PutItem lti',
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage ltiScoreQueue',
  ],
  authorization: [
    {
      variation: 'a delivery that does not exist',
      request: () => ({ params: { score_delivery_id: NO_DELIVERY } }),
      expect: { ...instructorOnly, instructor: fail(`No LMS score delivery ${NO_DELIVERY.slice(0, 64)} of this course.`, 404) },
    },
  ],
  fuzzedPath: () => ({ score_delivery_id: NO_DELIVERY }),
  // It takes no body.
  validBody: () => ({}),
};
