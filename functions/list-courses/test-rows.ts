/** What the cross-cutting tests expect of `list-courses` (test/hardening/test-rows.ts says which tests, and how). */
import { A, D, U, everyone, anyToken } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:Query enrollments/index/byUser', 'dynamodb:BatchGetItem courses', 'dynamodb:BatchGetItem terms'],
  authorization: [
    { variation: 'own courses', request: () => ({}), expect: anyToken },
    {
      variation: "another user's courses (user_id)",
      request: (world) => ({ query: { user_id: world.userIds.student } }),
      expect: { ...everyone(D), anonymous: U, student: A, superuser: A },
    },
  ],
};
