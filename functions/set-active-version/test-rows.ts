/** What the cross-cutting tests expect of `set-active-version` (test/hardening/test-rows.ts says which tests, and how). */
import { NOT_SAME_USER, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['gradeables', 'teams', 'submissions', 'results'].map((table) => `dynamodb:BatchGetItem ${table}`),
    'dynamodb:UpdateItem submissions',
    'dynamodb:UpdateItem teams',
    // The new total for linked LMS courses, written with the change.
    'dynamodb:PutItem webhookOutbox',
  ],
  authorization: [
    {
      variation: 'own submission: cancel',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { version: 0 } }),
      expect: members,
    },
    {
      variation: 'for student2 (user_id): cancel',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { version: 0, user_id: world.userIds.student2 } }),
      expect: { ...members, student: NOT_SAME_USER, mentor: NOT_SAME_USER },
    },
  ],
  validBody: () => ({ version: 0 }),
};
