/** What the cross-cutting tests expect of `create-user` (test/hardening/test-rows.ts says which tests, and how). */
import { superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:PutItem users', 'dynamodb:PutItem credentials', 'dynamodb:PutItem audit'],
  authorization: [
    {
      variation: 'a new user',
      request: (world) => ({ body: { user_id: world.unique('mx'), first_name: 'Matrix', last_name: 'User', email: 'mx@example.edu' } }),
      expect: superuserOnly,
    },
  ],
  validBody: (world) => ({ user_id: world.unique('fz'), first_name: 'Fuzz', last_name: 'User', email: 'fuzz@example.edu' }),
};
