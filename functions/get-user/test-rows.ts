/** What the cross-cutting tests expect of `get-user` (test/hardening/test-rows.ts says which tests, and how). */
import { anyToken, superuserOnly, ownId } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:GetItem users'],
  authorization: [
    { variation: 'own account', request: (world, persona) => ({ params: { user_id: ownId(world, persona) } }), expect: anyToken },
    {
      variation: "another user's (student2)",
      request: (world) => ({ params: { user_id: world.userIds.student2 } }),
      expect: superuserOnly,
    },
  ],
};
