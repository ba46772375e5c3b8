import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { handler as gradingWorker } from '#functions/grading-worker.ts';
import { runAsFunction } from '#shared/environment.ts';
import { useLocalQueue } from '#shared/grading/queue.ts';
import { GRADING_WORKER_FUNCTION } from '#infra/function-access.ts';
import { localFunctionScope } from './functions.ts';

interface Message {
  readonly id: string;
  readonly body: string;
  receiveCount: number;
  visibleAt: number;
}

export interface LocalGradingQueue {
  /** Messages waiting or in flight. */
  readonly depth: () => number;
  /** Resolves once no message is waiting or in flight. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * SQS's semantics for the local API, feeding the same worker function as in AWS: each message
 * is received by one of `workers` loops, deleted when the worker succeeds, and visible again
 * after the visibility time-out when it fails; after `maxReceiveCount` receives it goes to the
 * dead-letter list.
 */
export function startLocalGradingQueue(
  options: { workers?: number; visibilityTimeoutMs?: number; maxReceiveCount?: number } = {},
): LocalGradingQueue {
  const workers = options.workers ?? Number(process.env.GRADING_WORKERS ?? 1);
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? 30_000;
  const maxReceiveCount = options.maxReceiveCount ?? 3;
  const messages: Message[] = [];
  const deadLetters: Message[] = [];
  let stopped = false;
  let wake: () => void = () => {};
  let idleWaiters: (() => void)[] = [];

  const nextVisible = () => messages.find((message) => message.visibleAt <= Date.now());
  const settle = () => {
    if (messages.length === 0) {
      for (const resolve of idleWaiters) resolve();
      idleWaiters = [];
    }
  };

  async function loop(): Promise<void> {
    while (!stopped) {
      const message = nextVisible();
      if (!message) {
        const soonest = Math.min(...messages.map((candidate) => candidate.visibleAt), Date.now() + 1_000);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(10, soonest - Date.now()));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        continue;
      }
      message.receiveCount++;
      message.visibleAt = Date.now() + visibilityTimeoutMs;
      const result = await runAsFunction(localFunctionScope(GRADING_WORKER_FUNCTION), () => gradingWorker(sqsEvent(message))).catch(() => ({
        batchItemFailures: [{ itemIdentifier: message.id }],
      }));
      const failed = result.batchItemFailures.length > 0;
      if (!failed || message.receiveCount >= maxReceiveCount) {
        messages.splice(messages.indexOf(message), 1);
        if (failed) deadLetters.push(message);
      }
      settle();
    }
  }

  useLocalQueue(async (ticket) => {
    messages.push({ id: randomUUID(), body: JSON.stringify({ ticket }), receiveCount: 0, visibleAt: Date.now() });
    wake();
  });
  const loops = Array.from({ length: workers }, () => loop());

  return {
    depth: () => messages.length,
    idle: () => (messages.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    stop: async () => {
      stopped = true;
      useLocalQueue(undefined);
      wake();
      await Promise.all(loops);
    },
  };
}

function sqsEvent(message: Message): SQSEvent {
  const record: SQSRecord = {
    messageId: message.id,
    receiptHandle: message.id,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:grading',
    awsRegion: 'local',
  };
  return { Records: [record] };
}
