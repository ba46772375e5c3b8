/** What the cross-cutting tests expect of `list-gradeables` (test/hardening/test-rows.ts says which tests, and how). */
import { members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:Query gradeables', 'dynamodb:BatchGetItem teams'],
  authorization: [{ variation: 'the course', request: () => ({}), expect: members }],
};
