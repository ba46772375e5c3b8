import { handler } from '#functions/webhook-delivery/handler.ts';
import { useLocalWebhookQueue, type WebhookMessage } from '#shared/webhooks/queue.ts';
import { WEBHOOK_DELIVERY_FUNCTION } from '#infra/function-access.ts';
import { startLocalSqsQueue, type LocalSqsQueue } from './sqs-queue.ts';

export type LocalWebhookQueue = LocalSqsQueue<WebhookMessage>;

/**
 * The webhook queue of the local API (per-message delays, as in SQS): four loops run the delivery
 * function. With a journal folder its messages outlive a stop or crash of the process: an event
 * the relay took out of the outbox before its deliveries were written, an attempt waiting.
 */
export function startLocalWebhookQueue(journal?: string): LocalWebhookQueue {
  return startLocalSqsQueue({
    journal,
    name: 'webhooks',
    functionName: WEBHOOK_DELIVERY_FUNCTION,
    handler,
    concurrency: 4,
    visibilityTimeoutMs: 5_000,
    maxReceiveCount: 5,
    connect: useLocalWebhookQueue,
  });
}
