import { logger } from '#shared/logger.ts';
import { sqsBatchHandler } from '#shared/sqs-batch.ts';
import { handleWebhookMessage } from '#shared/webhooks/deliver.ts';
import type { WebhookMessage } from '#shared/webhooks/queue.ts';

/**
 * The webhook delivery function, fed by the webhook queue (SQS in AWS, an in-process queue
 * locally): fans events out to the course's webhooks and makes each delivery attempt. A failure
 * leaves the message to come back; after five receives it moves to the dead-letter queue.
 */
export const handler = sqsBatchHandler('Webhook message failed', async (record) => {
  const message = JSON.parse(record.body) as WebhookMessage;
  const outcome = await handleWebhookMessage(message, Number(record.attributes.ApproximateReceiveCount ?? 1));
  logger.info({ message: 'Webhook message', kind: message.kind, outcome, messageId: record.messageId });
});
