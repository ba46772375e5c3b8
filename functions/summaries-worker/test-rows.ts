/** What the cross-cutting tests expect of `summaries-worker` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  policy: [
    ...['BatchGetItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem'].map((action) => `dynamodb:${action} summaries`),
    'dynamodb:BatchGetItem courses',
    'dynamodb:UpdateItem courses',
    'dynamodb:BatchGetItem users',
    ...['enrollments', 'gradeables', 'submissions', 'teams', 'lateDays'].map((table) => `dynamodb:Query ${table}`),
    // The webhook event written with what causes it, and removed once queued.
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage webhookQueue',
    // The event source mapping's: Lambda polls the queue as the summaries worker.
    ...['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map(
      (action) => `sqs:${action} summariesQueue`,
    ),
  ],
};
