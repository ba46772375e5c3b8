/** What the cross-cutting tests expect of `set-course-config` (test/hardening/test-rows.ts says which tests, and how). */
import { A, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK, COURSE_CHANGE } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...COURSE_CHANGE,
    // A superuser's change of the access group moves the course's items there.
    ...['Query', 'BatchWriteItem', 'PutItem', 'DeleteItem'].map((action) => `dynamodb:${action} accessGroups`),
    // default_student_late_days: the late-days check for linked LMS courses, written with the change.
    'dynamodb:PutItem webhookOutbox',
  ],
  authorization: [
    // Superusers too, who alone may change the course's access group.
    {
      variation: 'the course',
      request: () => ({ body: { name: 'default_student_late_days', entry: '0' } }),
      expect: { ...instructorOnly, superuser: A },
    },
  ],
  validBody: () => ({ name: 'default_student_late_days', entry: '2' }),
};
