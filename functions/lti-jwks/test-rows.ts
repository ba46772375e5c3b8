/** What the cross-cutting tests expect of `lti-jwks` (test/hardening/test-rows.ts says which tests, and how). */
import { A, everyone } from '../../test/hardening/authorization-matrix.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: ['secretsmanager:GetSecretValue ltiKey'],
  authorization: [{ variation: "the tool's public keys", request: () => ({}), expect: everyone(A) }],
};
