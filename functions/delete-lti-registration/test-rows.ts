/** What the cross-cutting tests expect of `delete-lti-registration` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';
import { UNKNOWN_REGISTRATION } from '../get-lti-registration/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:DeleteItem lti'],
  authorization: [
    {
      variation: 'a registration that does not exist',
      request: () => ({ params: { registration_id: UNKNOWN_REGISTRATION } }),
      expect: { ...superuserOnly, superuser: fail(`No LTI registration ${UNKNOWN_REGISTRATION}.`, 404) },
    },
  ],
  validBody: () => ({}),
  fuzzedPath: () => ({ registration_id: UNKNOWN_REGISTRATION }),
};
