/** What the cross-cutting tests expect of `grant-late-days` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem lateDays', 'dynamodb:UpdateItem lateDays', 'dynamodb:PutItem webhookOutbox'],
  authorization: [
    {
      variation: 'student (section 1)',
      request: (world) => ({ params: { user_id: world.userIds.student }, body: { allowed_late_days: 1, since: '2026-09-01' } }),
      expect: instructorOnly,
    },
  ],
  validBody: () => ({ allowed_late_days: 3, since: '2026-09-01' }),
};
