/** What the cross-cutting tests expect of `publish-lti-scores` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

const NOT_LINKED = fail(
  "This course is linked to no LMS course that takes scores: an instructor's launch from an LMS course with a grade service links it (POST …/lti/link).",
  409,
);

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem gradeables',
    'dynamodb:Query lti',
    'dynamodb:Query submissions',
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage ltiScoreQueue',
  ],
  authorization: [
    {
      variation: 'a gradeable of a course linked to no LMS course',
      request: (world) => ({ params: { gradeable_id: world.openGradeable } }),
      expect: { ...instructorOnly, instructor: NOT_LINKED },
    },
  ],
  // It takes no body.
  validBody: () => ({}),
};
