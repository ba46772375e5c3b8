/** What the cross-cutting tests expect of `unarchive-course` (test/hardening/test-rows.ts says which tests, and how). */
import { A, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK, COURSE_CHANGE } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...COURSE_CHECK, ...COURSE_CHANGE],
  // The course's instructors and superusers (unarchiving an unarchived course changes nothing).
  authorization: [{ variation: 'the course (not archived)', request: () => ({}), expect: { ...instructorOnly, superuser: A } }],
  // It takes no body.
  validBody: () => ({}),
};
