/** What the cross-cutting tests expect of `user-summary` (test/hardening/test-rows.ts says which tests, and how). */
import { D, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem summaries'],
  authorization: [
    {
      variation: 'own summary',
      request: (world, persona) => ({ params: { user_id: persona === 'anonymous' ? world.userIds.student : world.userIds[persona] } }),
      expect: members,
    },
    {
      variation: "student2's summary",
      request: (world) => ({ params: { user_id: world.userIds.student2 } }),
      expect: { ...members, student: D, mentor: D, ta: D },
    },
  ],
};
