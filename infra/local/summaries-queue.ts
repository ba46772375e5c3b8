import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as summariesWorker } from '#functions/summaries-worker.ts';
import { runAsFunction } from '#shared/environment.ts';
import { useLocalSummariesQueue, type SummariesJobMessage } from '#shared/summaries/queue.ts';
import { SUMMARIES_WORKER_FUNCTION } from '#infra/function-access.ts';
import { localFunctionScope } from './functions.ts';

interface Message {
  readonly id: string;
  readonly body: string;
  receiveCount: number;
  visibleAt: number;
  inFlight: boolean;
}

export interface LocalSummariesQueue {
  /** Messages waiting or in flight. */
  readonly depth: () => number;
  /** Messages the worker failed on `maxReceiveCount` times. */
  readonly deadLetters: () => readonly string[];
  /** Holds messages back (they stay queued) until `resume`: lets a test see a job before it runs. */
  pause(): void;
  resume(): void;
  /** Sends a copy of a message again, as SQS may (at-least-once delivery). */
  redeliver(message: SummariesJobMessage): void;
  stop(): Promise<void>;
}

/**
 * The summaries queue of the local API, with the semantics the worker relies on in SQS: a message
 * deleted when the worker succeeds on it and visible again after the visibility time-out when it
 * fails, and a dead-letter list after `maxReceiveCount` receives. One loop runs the same worker
 * function as in AWS.
 */
export function startLocalSummariesQueue(options: { visibilityTimeoutMs?: number; maxReceiveCount?: number } = {}): LocalSummariesQueue {
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? 5_000;
  const maxReceiveCount = options.maxReceiveCount ?? 3;
  const messages: Message[] = [];
  const deadLetters: string[] = [];
  let stopped = false;
  let paused = false;
  let wake: (() => void) | undefined;
  const wakeUp = () => wake?.();

  async function loop(): Promise<void> {
    while (!stopped) {
      const message = paused ? undefined : messages.find((candidate) => !candidate.inFlight && candidate.visibleAt <= Date.now());
      if (!message) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            wake = undefined;
            resolve();
          }, 250);
          wake = () => {
            clearTimeout(timer);
            wake = undefined;
            resolve();
          };
        });
        continue;
      }
      message.receiveCount++;
      message.inFlight = true;
      const result = await runAsFunction(localFunctionScope(SUMMARIES_WORKER_FUNCTION), () => summariesWorker(sqsEvent(message))).catch(
        () => ({ batchItemFailures: [{ itemIdentifier: message.id }] }),
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

  const send = (message: SummariesJobMessage) => {
    messages.push({ id: randomUUID(), body: JSON.stringify(message), receiveCount: 0, visibleAt: Date.now(), inFlight: false });
    wakeUp();
  };
  useLocalSummariesQueue(async (message) => send(message));
  const running = loop();

  return {
    depth: () => messages.length,
    deadLetters: () => [...deadLetters],
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      wakeUp();
    },
    redeliver: send,
    stop: async () => {
      stopped = true;
      useLocalSummariesQueue(undefined);
      wakeUp();
      await running;
    },
  };
}

function sqsEvent(message: Message): SQSEvent {
  const now = String(Date.now());
  return {
    Records: [
      {
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
        eventSourceARN: 'arn:aws:sqs:local:000000000000:summaries',
        awsRegion: 'local',
      },
    ],
  };
}
