/** What the cross-cutting tests expect of `course-gradebook` (test/hardening/test-rows.ts says which tests, and how). */
import { D, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:Query gradeables',
    'dynamodb:Query enrollments/index/bySection',
    ...['submissions', 'teams', 'lateDays'].map((table) => `dynamodb:BatchGetItem ${table}`),
  ],
  authorization: [{ variation: 'the course', request: () => ({}), expect: { ...members, student: D } }],
};
