/** What the cross-cutting tests expect of `set-course-late-days` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:UpdateItem courses', 'dynamodb:PutItem audit', 'dynamodb:PutItem webhookOutbox'],
  // Late days: instructors set budgets, grants and extensions.
  authorization: [{ variation: 'the course', request: () => ({ body: { default_student_late_days: 0 } }), expect: instructorOnly }],
  validBody: () => ({ default_student_late_days: 2 }),
};
