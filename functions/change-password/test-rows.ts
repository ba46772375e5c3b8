/** What the cross-cutting tests expect of `change-password` (test/hardening/test-rows.ts says which tests, and how). */
import { U, fail, everyone } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...TOKEN_CHECK,
    ...['DeleteItem', 'PutItem', 'Query', 'UpdateItem'].map((action) => `dynamodb:${action} credentials`),
    'dynamodb:PutItem sessions',
    'dynamodb:PutItem audit',
    // Under PASSWORD_LOGIN=superusers, others are refused once their password proved right (the
    // account read, the attempt cleared only while the password is still the one checked).
    'dynamodb:GetItem users',
    'dynamodb:ConditionCheckItem credentials',
    // The new password holds only while the account is still enabled.
    'dynamodb:ConditionCheckItem users',
  ],
  authorization: [
    {
      variation: 'own, with a wrong current password',
      request: () => ({ body: { current_password: 'not-the-password', new_password: 'a fine new passphrase' } }),
      expect: { ...everyone(fail('The current password is not right.', 403)), anonymous: U },
    },
  ],
  validBody: () => ({ current_password: 'not-the-password', new_password: 'a fine new passphrase' }),
};
