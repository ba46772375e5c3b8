/** What the cross-cutting tests expect of `update-user` (test/hardening/test-rows.ts says which tests, and how). */
import { A, U, fail, everyone, anyToken, superuserOnly, ownId } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...TOKEN_CHECK,
    ...['GetItem', 'UpdateItem', 'ConditionCheckItem'].map((action) => `dynamodb:${action} users`),
    // The profile's copies on the user's enrollments follow it.
    'dynamodb:Query enrollments/index/byUser',
    'dynamodb:UpdateItem enrollments',
    'dynamodb:PutItem audit',
    // Disabling an account ends its session.
    'dynamodb:DeleteItem sessions',
  ],
  authorization: [
    {
      variation: 'own names',
      request: (world, persona) => ({ params: { user_id: ownId(world, persona) }, body: { last_name: 'Matrix' } }),
      expect: anyToken,
    },
    {
      variation: 'own level (mass assignment)',
      request: (world, persona) => ({ params: { user_id: ownId(world, persona) }, body: { level: 'superuser' } }),
      expect: {
        ...everyone(fail('You may change only your own first_name and last_name; level is changed by a superuser.', 403)),
        anonymous: U,
        superuser: A,
      },
    },
    {
      variation: 'own account disabled (mass assignment)',
      request: (world, persona) => ({ params: { user_id: ownId(world, persona) }, body: { disabled: true } }),
      expect: {
        ...everyone(fail('You may change only your own first_name and last_name; disabled is changed by a superuser.', 403)),
        anonymous: U,
        superuser: fail('Superusers cannot disable their own account; another superuser can.', 403),
      },
    },
    {
      variation: "another user's names (student2)",
      request: (world) => ({ params: { user_id: world.userIds.student2 }, body: { last_name: 'Matrix' } }),
      expect: superuserOnly,
    },
  ],
  validBody: () => ({ first_name: 'Fuzz', last_name: 'User' }),
};
