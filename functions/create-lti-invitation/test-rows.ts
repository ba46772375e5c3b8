/** What the cross-cutting tests expect of `create-lti-invitation` (test/hardening/test-rows.ts says which tests, and how). */
import { superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:PutItem lti'],
  authorization: [{ variation: 'an invitation', request: () => ({ body: { label: 'Matrix LMS' } }), expect: superuserOnly }],
  validBody: () => ({ label: 'Fuzz LMS', user_id_claim: 'email', user_id_suffix: '@example.edu', create_users: false }),
};
