import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { handler as webhookDelivery } from '#functions/webhook-delivery.ts';
import { runAsFunction } from '#shared/environment.ts';
import { useLocalWebhookQueue, type WebhookMessage } from '#shared/webhooks/queue.ts';
import { WEBHOOK_DELIVERY_FUNCTION } from '#infra/function-access.ts';
import { localFunctionScope } from './functions.ts';

interface Message {
  readonly id: string;
  readonly body: string;
  receiveCount: number;
  visibleAt: number;
  inFlight: boolean;
}

export interface LocalWebhookQueue {
  /** Messages waiting (also those held back by a delay) or in flight. */
  readonly depth: () => number;
  /** Messages the delivery function failed on `maxReceiveCount` times. */
  readonly deadLetters: () => readonly string[];
  stop(): Promise<void>;
}

/**
 * The webhook queue of the local API, with the semantics the delivery code relies on in SQS:
 * per-message delays, a message deleted when the delivery function succeeds on it and visible
 * again after the visibility time-out when it fails, and a dead-letter list after
 * `maxReceiveCount` receives. `concurrency` loops run the same delivery function as in AWS.
 */
export function startLocalWebhookQueue(
  options: { concurrency?: number; visibilityTimeoutMs?: number; maxReceiveCount?: number } = {},
): LocalWebhookQueue {
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? 5_000;
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  const messages: Message[] = [];
  const deadLetters: string[] = [];
  let stopped = false;
  const wakers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of wakers) wake();
  };

  const nextVisible = () => messages.find((message) => !message.inFlight && message.visibleAt <= Date.now());

  async function loop(): Promise<void> {
    while (!stopped) {
      const message = nextVisible();
      if (!message) {
        const soonest = Math.min(
          ...messages.filter((candidate) => !candidate.inFlight).map((candidate) => candidate.visibleAt),
          Date.now() + 1_000,
        );
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            wakers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, Math.max(5, soonest - Date.now()));
          wakers.add(wake);
        });
        continue;
      }
      message.receiveCount++;
      message.inFlight = true;
      const result = await runAsFunction(localFunctionScope(WEBHOOK_DELIVERY_FUNCTION), () => webhookDelivery(sqsEvent(message))).catch(
        () => ({
          batchItemFailures: [{ itemIdentifier: message.id }],
        }),
      );
      message.inFlight = false;
      const failed = result.batchItemFailures.length > 0;
      if (!failed || message.receiveCount >= maxReceiveCount) {
        messages.splice(messages.indexOf(message), 1);
        if (failed) deadLetters.push(message.body);
      } else {
        message.visibleAt = Date.now() + visibilityTimeoutMs;
      }
    }
  }

  useLocalWebhookQueue(async (body: WebhookMessage, delaySeconds: number) => {
    messages.push({
      id: randomUUID(),
      body: JSON.stringify(body),
      receiveCount: 0,
      visibleAt: Date.now() + delaySeconds * 1000,
      inFlight: false,
    });
    wakeAll();
  });
  const loops = Array.from({ length: options.concurrency ?? 4 }, () => loop());

  return {
    depth: () => messages.length,
    deadLetters: () => [...deadLetters],
    stop: async () => {
      stopped = true;
      useLocalWebhookQueue(undefined);
      wakeAll();
      await Promise.all(loops);
    },
  };
}

function sqsEvent(message: Message): SQSEvent {
  const now = String(Date.now());
  const record: SQSRecord = {
    messageId: message.id,
    receiptHandle: message.id,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: now,
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:webhooks',
    awsRegion: 'local',
  };
  return { Records: [record] };
}
