import { Webhook as StandardWebhook } from 'standardwebhooks';
import { getItems } from '#shared/data/items.ts';
import { createDelivery, deliveryRef, recordAttempt, webhookRef, webhookSecretRef, webhooksOf } from '#shared/data/webhooks.ts';
import { logger } from '#shared/logger.ts';
import { nextStep, queueDelaySeconds, type Delivery, type DeliveryAttempt } from './delivery.ts';
import { sendWebhookMessage, type WebhookMessage } from './queue.ts';
import { postWebhook } from './send.ts';
import { config } from '#shared/config.ts';
import { ATTEMPT_TIMEOUT_MS, allowedWebhookHosts } from './settings.ts';
import { eventPayload, type WebhookEvent } from './webhook.ts';

type AttemptMessage = Extract<WebhookMessage, { kind: 'attempt' }>;

export type MessageOutcome = 'fanned-out' | 'delivered' | 'retrying' | 'failed' | 'waiting' | 'done-before' | 'gone';

/**
 * Acts on one webhook queue message. `receiveCount` above 1 means an earlier try of this very
 * message failed part-way, so work it may have done is completed (the next message queued) rather
 * than skipped. Throws when the data or the queue fails: the message then comes back.
 */
export async function handleWebhookMessage(message: WebhookMessage, receiveCount: number, now = new Date()): Promise<MessageOutcome> {
  return message.kind === 'event' ? fanOut(message.event, receiveCount, now) : attempt(message, receiveCount, now);
}

/** One delivery per webhook of the course that asked for the event, each queued for its first attempt. */
async function fanOut(event: WebhookEvent, receiveCount: number, now: Date): Promise<MessageOutcome> {
  const hooks = (await webhooksOf(event.term, event.course)).filter((hook) => hook.events.includes(event.type));
  await Promise.all(
    hooks.map(async (hook) => {
      const delivery: Delivery = {
        term: event.term,
        course: event.course,
        webhookId: hook.webhookId,
        deliveryId: event.id,
        event: event.type,
        payload: eventPayload(event),
        state: 'pending',
        attempts: [],
        roundStart: 0,
        createdAt: now.toISOString(),
      };
      if ((await createDelivery(delivery, now)) || receiveCount > 1) await queueAttempt(delivery, now);
    }),
  );
  return 'fanned-out';
}

async function attempt(message: AttemptMessage, receiveCount: number, now: Date): Promise<MessageOutcome> {
  const { hook, secret, delivery } = await getItems({
    hook: webhookRef(message.term, message.course, message.webhookId),
    secret: webhookSecretRef(message.term, message.course, message.webhookId),
    delivery: deliveryRef(message.term, message.course, message.webhookId, message.deliveryId),
  });
  if (!delivery) return 'gone';
  if (delivery.state !== 'pending' || delivery.attempts.length !== message.after) {
    // This message was acted on; if that try failed before queueing the next attempt, queue it now.
    if (receiveCount > 1 && delivery.state === 'pending' && delivery.attempts.length === message.after + 1)
      await queueAttempt(delivery, now);
    return 'done-before';
  }
  if (message.notBefore && Date.parse(message.notBefore) > now.getTime()) {
    await sendWebhookMessage(message, queueDelaySeconds(message.notBefore, now));
    return 'waiting';
  }
  const made: DeliveryAttempt =
    hook && secret
      ? await postWebhook(new URL(hook.url), delivery.payload, signedHeaders(secret, delivery.deliveryId, delivery.payload, now), {
          allowedHosts: allowedWebhookHosts(),
          timeoutMs: ATTEMPT_TIMEOUT_MS,
        })
      : { at: now.toISOString(), status: null, durationMs: 0, error: 'The webhook was removed.' };
  const schedule = hook && secret ? scheduleInForce() : [];
  const step = nextStep(delivery.attempts.length + 1 - delivery.roundStart, made.status, schedule, new Date());
  if (!(await recordAttempt(delivery, made, step))) return 'done-before';
  if (step.state === 'pending')
    await queueAttempt({ ...delivery, attempts: [...delivery.attempts, made], nextAttemptAt: step.nextAttemptAt }, new Date());
  if (step.state === 'failed') {
    logger.warn({
      message: 'Webhook delivery failed after its last retry',
      webhookId: delivery.webhookId,
      deliveryId: delivery.deliveryId,
      course: `${delivery.term}/${delivery.course}`,
    });
  }
  return step.state === 'pending' ? 'retrying' : step.state;
}

/** The message of the delivery's next attempt. */
export const attemptMessage = (delivery: Delivery): AttemptMessage => ({
  kind: 'attempt',
  term: delivery.term,
  course: delivery.course,
  webhookId: delivery.webhookId,
  deliveryId: delivery.deliveryId,
  after: delivery.attempts.length,
  ...(delivery.nextAttemptAt ? { notBefore: delivery.nextAttemptAt } : {}),
});

/** How long the delivery's next attempt waits from `now`: until its `nextAttemptAt`, none once that is past. */
export const attemptDelaySeconds = (delivery: Delivery, now: Date): number =>
  delivery.nextAttemptAt ? Math.max(0, (Date.parse(delivery.nextAttemptAt) - now.getTime()) / 1000) : 0;

/** Queues the delivery's next attempt, held back until its `nextAttemptAt`. */
export async function queueAttempt(delivery: Delivery, now: Date): Promise<void> {
  await sendWebhookMessage(attemptMessage(delivery), attemptDelaySeconds(delivery, now));
}

/** Standard Webhooks' headers: the message id (the same on every attempt), the time of sending and the signature. */
export function signedHeaders(secret: string, messageId: string, payload: string, now: Date): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new StandardWebhook(secret).sign(messageId, now, payload),
  };
}

function scheduleInForce(): readonly number[] {
  const { value: delays, problem } = config('WEBHOOK_RETRY_SCHEDULE');
  if (problem) logger.error({ message: problem });
  return delays;
}
