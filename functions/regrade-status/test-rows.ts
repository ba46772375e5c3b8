/** What the cross-cutting tests expect of `regrade-status` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem jobs'],
  authorization: [
    {
      variation: 'a regrade that does not exist',
      request: () => ({ params: { regrade_id: 'rg_AAAAAAAAAAAAAAAAAAAAAA' } }),
      expect: { ...instructorOnly, instructor: fail('No regrade rg_AAAAAAAAAAAAAAAAAAAAAA in this course.', 404) },
    },
  ],
};
