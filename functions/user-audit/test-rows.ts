/** What the cross-cutting tests expect of `user-audit` (test/hardening/test-rows.ts says which tests, and how). */
import { superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:Query audit'],
  authorization: [
    { variation: "student2's trail", request: (world) => ({ params: { user_id: world.userIds.student2 } }), expect: superuserOnly },
  ],
};
