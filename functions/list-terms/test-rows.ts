/** What the cross-cutting tests expect of `list-terms` (test/hardening/test-rows.ts says which tests, and how). */
import { anyToken } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:Scan terms'],
  authorization: [{ variation: 'every term', request: () => ({}), expect: anyToken }],
};
