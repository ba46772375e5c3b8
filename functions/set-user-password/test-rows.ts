/** What the cross-cutting tests expect of `set-user-password` (test/hardening/test-rows.ts says which tests, and how). */
import { superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...TOKEN_CHECK,
    'dynamodb:ConditionCheckItem users',
    'dynamodb:PutItem credentials',
    'dynamodb:DeleteItem sessions',
    'dynamodb:PutItem audit',
  ],
  authorization: [
    { variation: "student2's, generated", request: (world) => ({ params: { user_id: world.userIds.student2 } }), expect: superuserOnly },
  ],
  validBody: () => ({}),
};
