/** What the cross-cutting tests expect of `lti-config` (test/hardening/test-rows.ts says which tests, and how). */
import { A, everyone } from '../../test/hardening/authorization-matrix.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [],
  authorization: [{ variation: "the tool's configuration", request: () => ({}), expect: everyone(A) }],
};
