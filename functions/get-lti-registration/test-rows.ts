/** What the cross-cutting tests expect of `get-lti-registration` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const UNKNOWN_REGISTRATION = 'lti_AAAAAAAAAAAAAAAAAAAAAA';

export const rows: ReadRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:BatchGetItem lti'],
  authorization: [
    {
      variation: 'a registration that does not exist',
      request: () => ({ params: { registration_id: UNKNOWN_REGISTRATION } }),
      expect: { ...superuserOnly, superuser: fail(`No LTI registration ${UNKNOWN_REGISTRATION}.`, 404) },
    },
  ],
};
