/** What the cross-cutting tests expect of `list-users` (test/hardening/test-rows.ts says which tests, and how). */
import { superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:Scan users'],
  authorization: [{ variation: 'every user', request: () => ({}), expect: superuserOnly }],
};
