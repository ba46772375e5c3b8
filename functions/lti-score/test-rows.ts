/** What the cross-cutting tests expect of `lti-score` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  policy: [
    'dynamodb:Query lti',
    'dynamodb:BatchGetItem lti',
    'dynamodb:PutItem lti',
    ...['courses', 'gradeables', 'enrollments', 'users', 'lateDays', 'teams', 'submissions'].map(
      (table) => `dynamodb:BatchGetItem ${table}`,
    ),
    'dynamodb:Query gradeables',
    // A publish lists the gradeable's submissions.
    'dynamodb:Query submissions',
    // The service token's assertion is signed with the tool's key.
    'secretsmanager:GetSecretValue ltiKey',
    'sqs:SendMessage ltiScoreQueue',
    // The event source mapping's: Lambda polls the queue as the lti-score function.
    ...['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map(
      (action) => `sqs:${action} ltiScoreQueue`,
    ),
  ],
};
