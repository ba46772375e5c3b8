/** What the cross-cutting tests expect of `link-identity` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:GetItem users', 'dynamodb:UpdateItem users', 'dynamodb:PutItem audit'],
  authorization: [
    {
      variation: "student2's, where no identity provider is configured",
      request: (world) => ({ params: { user_id: world.userIds.student2 }, body: { subject: 'matrix-subject' } }),
      expect: {
        ...superuserOnly,
        superuser: fail('This deployment does not sign in through an identity provider: log in with user_id and password.', 400),
      },
    },
  ],
  validBody: () => ({ subject: 'fuzz-subject' }),
};
