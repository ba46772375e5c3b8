/** What the cross-cutting tests expect of `webhook-delivery` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  policy: [
    'dynamodb:Query webhooks',
    'dynamodb:BatchGetItem webhooks',
    'dynamodb:BatchGetItem webhookSecrets',
    ...['BatchGetItem', 'PutItem', 'UpdateItem'].map((action) => `dynamodb:${action} webhookDeliveries`),
    'sqs:SendMessage webhookQueue',
    // The event source mapping's: Lambda polls the queue as the delivery function.
    ...['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map(
      (action) => `sqs:${action} webhookQueue`,
    ),
  ],
};
