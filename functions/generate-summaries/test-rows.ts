/** What the cross-cutting tests expect of `generate-summaries` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:Scan courses',
    'dynamodb:UpdateItem courses',
    ...['enrollments', 'gradeables', 'submissions', 'teams', 'summaries', 'lateDays'].map((table) => `dynamodb:Query ${table}`),
    'dynamodb:BatchWriteItem summaries',
    // The course's job slot (read with the token check), a job and its slot written in one transaction, ended if it cannot be queued.
    ...['BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'].map((action) => `dynamodb:${action} summaries`),
    // The webhook event written with what causes it, and removed once queued.
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage webhookQueue',
    'sqs:SendMessage summariesQueue',
  ],
  authorization: [{ variation: 'the course', request: () => ({}), expect: instructorOnly }],
  // It takes no body.
  validBody: () => ({}),
};
