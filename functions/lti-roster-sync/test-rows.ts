/** What the cross-cutting tests expect of `lti-roster-sync` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    // The course's links, their registrations and the LMS people's bindings; the nightly run's list of linked courses.
    ...['Query', 'GetItem', 'BatchGetItem', 'Scan'].map((action) => `dynamodb:${action} lti`),
    // The class-list import.
    'dynamodb:PutItem users',
    'dynamodb:PutItem credentials',
    ...['Query', 'PutItem', 'ConditionCheckItem', 'UpdateItem'].map((action) => `dynamodb:${action} enrollments`),
    'dynamodb:PutItem accessGroups',
    'dynamodb:DeleteItem accessGroups',
    'dynamodb:BatchGetItem terms',
    'dynamodb:PutItem audit',
    'secretsmanager:GetSecretValue ltiKey',
  ],
  authorization: [
    {
      variation: 'a course linked to no LMS course, dry run',
      request: () => ({ body: { dry_run: true } }),
      expect: {
        ...instructorOnly,
        instructor: fail(
          "This course is linked to no LMS course with a roster service: an instructor's launch from the LMS course links it (POST …/lti/link).",
          409,
        ),
      },
    },
  ],
  validBody: () => ({ dry_run: true }),
};
