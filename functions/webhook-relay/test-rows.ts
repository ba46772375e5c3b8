/** What the cross-cutting tests expect of `webhook-relay` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  // The outbox relay: reads what the outbox still holds, queues it (on the webhook or the LTI score queue), removes it.
  policy: [
    'dynamodb:Scan webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage webhookQueue',
    'sqs:SendMessage ltiScoreQueue',
  ],
};
