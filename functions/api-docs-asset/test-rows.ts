/** What the cross-cutting tests expect of `api-docs-asset` (test/hardening/test-rows.ts says which tests, and how). */
import { swaggerUiLinks } from '#shared/docs/swagger-ui.ts';
import { A, everyone } from '../../test/hardening/authorization-matrix.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [],
  authorization: [{ variation: 'its script', request: () => ({ params: { asset: swaggerUiLinks().script } }), expect: everyone(A) }],
};
