/** What the cross-cutting tests expect of `unlink-lti-context` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  // The course's links listed; the link and the course's entry removed with the audit entry in one transaction.
  policy: [...COURSE_CHECK, 'dynamodb:Query lti', 'dynamodb:DeleteItem lti', 'dynamodb:UpdateItem courses', 'dynamodb:PutItem audit'],
  authorization: [
    {
      variation: 'an LMS course not linked',
      request: () => ({ query: { registration_id: 'lti_none', context_id: 'none' } }),
      expect: { ...instructorOnly, instructor: fail('The LMS course none is not linked to this course.', 404) },
    },
  ],
  validBody: () => ({}),
};
