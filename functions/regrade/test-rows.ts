/** What the cross-cutting tests expect of `regrade` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['gradeables', 'teams', 'submissions', 'jobs'].map((table) => `dynamodb:BatchGetItem ${table}`),
    'dynamodb:Query submissions',
    'dynamodb:UpdateItem submissions',
    'dynamodb:PutItem jobs',
    'dynamodb:UpdateItem jobs',
    'sqs:SendMessage gradingQueue',
  ],
  authorization: [
    {
      variation: 'every active version of the open gradeable',
      request: (world) => ({ params: { gradeable_id: world.openGradeable } }),
      expect: instructorOnly,
    },
  ],
  validBody: (world) => ({ user_id: world.userIds.student, version_to_regrade: 1 }),
};
