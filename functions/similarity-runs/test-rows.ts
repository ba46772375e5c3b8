/** What the cross-cutting tests expect of `similarity-runs` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem gradeables', 'dynamodb:Query summaries', 'dynamodb:BatchGetItem summaries'],
  authorization: [
    { variation: 'the open gradeable', request: (world) => ({ params: { gradeable_id: world.openGradeable } }), expect: instructorOnly },
    {
      variation: 'a gradeable that does not exist',
      request: () => ({ params: { gradeable_id: 'no-such-gradeable' } }),
      expect: { ...instructorOnly, instructor: fail('No gradeable no-such-gradeable in this course to compare.', 404) },
    },
  ],
};
