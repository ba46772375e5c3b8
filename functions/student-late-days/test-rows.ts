/** What the cross-cutting tests expect of `student-late-days` (test/hardening/test-rows.ts says which tests, and how). */
import { D, fail, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem lateDays',
    'dynamodb:Query gradeables',
    ...['submissions', 'teams'].map((table) => `dynamodb:Query ${table}/index/byStudent`),
  ],
  // A student's table is theirs, any student's for instructors and full access graders, their sections' for limited access graders.
  authorization: [
    { variation: 'student (section 1)', request: (world) => ({ params: { user_id: world.userIds.student } }), expect: members },
    {
      variation: 'student2 (section 2)',
      request: (world) => ({ params: { user_id: world.userIds.student2 } }),
      expect: { ...members, student: D, mentor: fail('You do not grade section 2.', 403) },
    },
  ],
};
