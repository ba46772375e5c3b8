/** What the cross-cutting tests expect of `summaries-worker` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  policy: [
    ...['BatchGetItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem', 'PutItem'].map((action) => `dynamodb:${action} summaries`),
    'dynamodb:BatchGetItem courses',
    'dynamodb:UpdateItem courses',
    'dynamodb:BatchGetItem users',
    // A similarity run: its gradeables' repository subdirectory.
    'dynamodb:BatchGetItem gradeables',
    ...['enrollments', 'gradeables', 'submissions', 'teams', 'lateDays'].map((table) => `dynamodb:Query ${table}`),
    // A gradebook export: the class page by page, as the course-gradebook route reads it, written to the bucket.
    'dynamodb:Query enrollments/index/bySection',
    ...['enrollments', 'submissions', 'teams', 'lateDays'].map((table) => `dynamodb:BatchGetItem ${table}`),
    's3:PutObject submissionsBucket/exports/*',
    // A similarity run: the versions' stored files, listed and read; their fingerprints read or stored.
    's3:GetObject submissionsBucket/versions/*',
    's3:ListBucket submissionsBucket',
    's3:GetObject submissionsBucket/fingerprints/*',
    's3:PutObject submissionsBucket/fingerprints/*',
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
