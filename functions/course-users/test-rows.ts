/** What the cross-cutting tests expect of `course-users` (test/hardening/test-rows.ts says which tests, and how). */
import { staffOrGroup, siblingStaffOrGroup, inSibling } from '../../test/hardening/authorization-matrix.ts';
import { GROUP_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...GROUP_CHECK, 'dynamodb:Query enrollments'],
  authorization: [
    { variation: 'the course', request: () => ({}), expect: staffOrGroup },
    { variation: 'the sibling course of its access group', request: (world) => inSibling(world), expect: siblingStaffOrGroup },
  ],
};
