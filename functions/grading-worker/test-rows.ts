/** What the cross-cutting tests expect of `grading-worker` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  policy: [
    'dynamodb:BatchGetItem gradeables',
    // Whether the course's linked LMS courses take scores.
    'dynamodb:BatchGetItem courses',
    'dynamodb:BatchGetItem jobs',
    'dynamodb:UpdateItem jobs',
    'dynamodb:Query jobs/index/byLease',
    'dynamodb:PutItem results',
    // Each graded version's record is signed with the record key.
    'secretsmanager:GetSecretValue recordKeys',
    'dynamodb:BatchGetItem submissions',
    'dynamodb:UpdateItem submissions',
    // The webhook event (and a grade for linked LMS courses) written with what causes it, and removed once queued.
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage webhookQueue',
    // A files version's files: listed, and read by the sandbox through presigned GETs.
    's3:GetObject submissionsBucket/versions/*',
    's3:ListBucket submissionsBucket',
    // The grading sandbox: the job's objects, the harness (put into each job's input), and the builds of its project.
    ...['DeleteObject', 'GetObject', 'PutObject'].map((action) => `s3:${action} jobsBucket/jobs/*`),
    's3:GetObject harness',
    ...['BatchGetBuilds', 'StartBuild', 'StopBuild'].map((action) => `codebuild:${action} gradingProject`),
    // A worker leaving jobs queued wakes another.
    'sqs:SendMessage gradingQueue',
    // The event source mapping's: Lambda polls the queue as the worker.
    ...['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map(
      (action) => `sqs:${action} gradingQueue`,
    ),
  ],
};
