/** What the cross-cutting tests expect of `post-to-inquiry` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

const NOT_FOUND = fail('Grade inquiry not found.', 404);

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['gradeables', 'teams', 'inquiries'].map((table) => `dynamodb:BatchGetItem ${table}`),
    'dynamodb:UpdateItem inquiries',
    'dynamodb:PutItem audit',
  ],
  // Who may post to an inquiry that exists: test/http/inquiries.test.ts.
  authorization: [
    {
      variation: 'an inquiry that does not exist',
      request: (world) => ({
        params: { gradeable_id: world.openGradeable, inquiry_id: 'iq_000000000000000000000' },
        body: { content: 'Hello' },
      }),
      expect: { ...members, student: NOT_FOUND, mentor: NOT_FOUND, ta: NOT_FOUND, instructor: NOT_FOUND },
    },
  ],
  validBody: () => ({ content: 'Fuzz' }),
};
