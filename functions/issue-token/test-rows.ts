/** What the cross-cutting tests expect of `issue-token` (test/hardening/test-rows.ts says which tests, and how). */
import { A, everyone } from '../../test/hardening/authorization-matrix.ts';
import { CREDENTIALS } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    'dynamodb:PutItem sessions',
    ...CREDENTIALS,
    'secretsmanager:GetSecretValue signingSecret',
    // Signing in with an ID token: the user is read, or created with an audit entry (OIDC_CREATE_USERS), and linked to the identity.
    ...['GetItem', 'PutItem', 'ConditionCheckItem', 'UpdateItem'].map((action) => `dynamodb:${action} users`),
    'dynamodb:PutItem audit',
    // An LTI launch code: read, then consumed in the launch session's transaction.
    'dynamodb:BatchGetItem lti',
    'dynamodb:DeleteItem lti',
  ],
  authorization: [{ variation: 'credentials of another user', request: (world) => ({ body: { ...world.login } }), expect: everyone(A) }],
  validBody: () => ({ user_id: 'nobody-here', password: 'wrong' }),
};
