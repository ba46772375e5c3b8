/** What the cross-cutting tests expect of `invalidate-token` (test/hardening/test-rows.ts says which tests, and how). */
import { A, everyone } from '../../test/hardening/authorization-matrix.ts';
import { CREDENTIALS, TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  // Under PASSWORD_LOGIN=superusers, the account is read to know who may use a password.
  policy: [...TOKEN_CHECK, 'dynamodb:DeleteItem sessions', ...CREDENTIALS, 'dynamodb:GetItem users'],
  authorization: [{ variation: 'credentials of another user', request: (world) => ({ body: { ...world.login } }), expect: everyone(A) }],
  validBody: () => ({ user_id: 'nobody-here', password: 'wrong' }),
};
