/** What the cross-cutting tests expect of `create-term` (test/hardening/test-rows.ts says which tests, and how). */
import { A, D, U, everyone } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:PutItem terms'],
  authorization: [
    {
      variation: 'a new term',
      request: (world) => ({
        body: { term_id: world.unique('t'), term_name: 'Matrix Term', start_date: '2027-01-10', end_date: '2027-05-10' },
      }),
      expect: { ...everyone(D), anonymous: U, superuser: A },
    },
  ],
  validBody: (world) => ({ term_id: world.unique('ft'), term_name: 'Fuzz term', start_date: '2027-01-10', end_date: '2027-05-10' }),
};
