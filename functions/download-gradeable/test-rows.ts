/** What the cross-cutting tests expect of `download-gradeable` (test/hardening/test-rows.ts says which tests, and how). */
import { staffOrGroup, siblingStaffOrGroup, inSibling } from '../../test/hardening/authorization-matrix.ts';
import { GROUP_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...GROUP_CHECK, 'dynamodb:BatchGetItem gradeables'],
  authorization: [
    { variation: 'an open gradeable', request: (world) => ({ params: { gradeable_id: world.openGradeable } }), expect: staffOrGroup },
    {
      variation: 'a gradeable of the sibling course of its access group',
      request: (world) => inSibling(world, { gradeable_id: world.sibling.gradeable }),
      expect: siblingStaffOrGroup,
    },
  ],
};
