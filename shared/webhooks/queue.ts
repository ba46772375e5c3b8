import { describeRunningFunction, setting } from '#shared/environment.ts';
import { sendSqsMessage } from '#shared/sqs-send.ts';
import { MAX_QUEUE_DELAY_SECONDS } from './delivery.ts';
import type { WebhookEvent } from './webhook.ts';

/**
 * The webhook queue's messages. An `event` fans out to the course's webhooks that asked for it; an
 * `attempt` is one try of one delivery, made once the delivery has `after` attempts recorded (a
 * copy of a message already acted on is recognised by that count). In AWS the queue is SQS
 * (WEBHOOK_QUEUE_URL), delivering to the webhook-delivery function; on the local API an in-process
 * queue feeds the same function code.
 */
export type WebhookMessage =
  | { readonly kind: 'event'; readonly event: WebhookEvent }
  | {
      readonly kind: 'attempt';
      readonly term: string;
      readonly course: string;
      readonly webhookId: string;
      readonly deliveryId: string;
      readonly after: number;
      /** Not before this time: a wait longer than the queue can delay a message goes round again. */
      readonly notBefore?: string;
    };

type Sender = (message: WebhookMessage, delaySeconds: number) => Promise<void>;

let localSender: Sender | undefined;

export function useLocalWebhookQueue(sender: Sender | undefined): void {
  localSender = sender;
}

/** Queues a message, visible after `delaySeconds`, at most 15 minutes (SQS rounds up to whole seconds). */
export async function sendWebhookMessage(message: WebhookMessage, delaySeconds = 0): Promise<void> {
  const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, delaySeconds);
  const queueUrl = setting('WEBHOOK_QUEUE_URL');
  if (!queueUrl)
    throw new Error(`The webhook queue is not in the environment of ${describeRunningFunction()}: WEBHOOK_QUEUE_URL is not set.`);
  if (queueUrl.startsWith('local:')) {
    await localSender?.(message, delay);
    return;
  }
  await sendSqsMessage(queueUrl, JSON.stringify(message), Math.ceil(delay));
}
