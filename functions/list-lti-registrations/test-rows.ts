/** What the cross-cutting tests expect of `list-lti-registrations` (test/hardening/test-rows.ts says which tests, and how). */
import { superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:Query lti'],
  authorization: [{ variation: 'every platform', request: () => ({}), expect: superuserOnly }],
};
