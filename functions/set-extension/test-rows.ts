/** What the cross-cutting tests expect of `set-extension` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem gradeables',
    'dynamodb:BatchGetItem lateDays',
    'dynamodb:UpdateItem lateDays',
    'dynamodb:PutItem webhookOutbox',
  ],
  authorization: [
    {
      variation: 'student (section 1) on an open gradeable',
      request: (world) => ({
        params: { gradeable_id: world.openGradeable, user_id: world.userIds.student },
        body: { late_days: 1, reason_for_exception: 'Matrix' },
      }),
      expect: instructorOnly,
    },
  ],
  validBody: () => ({ late_days: 1, reason_for_exception: 'Fuzz' }),
};
