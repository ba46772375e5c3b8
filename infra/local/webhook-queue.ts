import { handler } from '#functions/webhook-delivery/handler.ts';
import { useLocalWebhookQueue, type WebhookMessage } from '#shared/webhooks/queue.ts';
import { WEBHOOK_DELIVERY_FUNCTION } from '#infra/function-access.ts';
import { startLocalSqsQueue, type LocalSqsQueue } from './sqs-queue.ts';

export type LocalWebhookQueue = LocalSqsQueue<WebhookMessage>;

/** The webhook queue of the local API (per-message delays, as in SQS): four loops run the delivery function. */
export function startLocalWebhookQueue(): LocalWebhookQueue {
  return startLocalSqsQueue({
    name: 'webhooks',
    functionName: WEBHOOK_DELIVERY_FUNCTION,
    handler,
    concurrency: 4,
    visibilityTimeoutMs: 5_000,
    maxReceiveCount: 5,
    connect: useLocalWebhookQueue,
  });
}
