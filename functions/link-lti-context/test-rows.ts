/** What the cross-cutting tests expect of `link-lti-context` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  // The caller's launch session read with the token check; the link, the course's entry and the audit entry in one transaction
  // (a context linked already is read to name its course).
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem lti', 'dynamodb:PutItem lti', 'dynamodb:UpdateItem courses', 'dynamodb:PutItem audit'],
  authorization: [
    {
      variation: 'an API token, not a launch session',
      request: () => ({ body: { section: '1' } }),
      expect: {
        ...instructorOnly,
        instructor: fail(
          'An LMS course is linked from its instructor’s launch while it is not linked yet: open the tool from that LMS course, then link it.',
          403,
        ),
      },
    },
  ],
  validBody: () => ({ section: '1' }),
};
