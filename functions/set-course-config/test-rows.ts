/** What the cross-cutting tests expect of `set-course-config` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK, COURSE_CHANGE } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...COURSE_CHECK, ...COURSE_CHANGE],
  authorization: [
    { variation: 'the course', request: () => ({ body: { name: 'default_student_late_days', entry: '0' } }), expect: instructorOnly },
  ],
  validBody: () => ({ name: 'default_student_late_days', entry: '2' }),
};
