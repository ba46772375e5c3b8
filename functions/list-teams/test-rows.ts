/** What the cross-cutting tests expect of `list-teams` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem gradeables', 'dynamodb:Query teams'],
  authorization: [
    { variation: 'a team gradeable', request: (world) => ({ params: { gradeable_id: world.teamGradeable } }), expect: instructorOnly },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.teamGradeable }),
};
