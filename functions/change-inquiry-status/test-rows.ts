/** What the cross-cutting tests expect of `change-inquiry-status` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

const NOT_FOUND = fail('Grade inquiry not found.', 404);

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['gradeables', 'teams', 'inquiries'].map((table) => `dynamodb:BatchGetItem ${table}`),
    // The inquiry conditioned on its revision, and its slot freed (resolved) or taken again (reopened).
    'dynamodb:UpdateItem inquiries',
    'dynamodb:PutItem inquiries',
    'dynamodb:DeleteItem inquiries',
    'dynamodb:PutItem audit',
    // The inquiry.resolved or inquiry.opened event written with the change, and removed once queued.
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage webhookQueue',
  ],
  // Who may resolve or reopen an inquiry that exists: test/http/inquiries.test.ts.
  authorization: [
    {
      variation: 'an inquiry that does not exist',
      request: (world) => ({
        params: { gradeable_id: world.openGradeable, inquiry_id: 'iq_000000000000000000000' },
        body: { status: 'resolved' },
      }),
      expect: { ...members, student: NOT_FOUND, mentor: NOT_FOUND, ta: NOT_FOUND, instructor: NOT_FOUND },
    },
  ],
  validBody: () => ({ status: 'resolved', revision: 1 }),
};
