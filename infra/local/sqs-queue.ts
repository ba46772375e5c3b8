import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runAsFunction } from '#shared/environment.ts';
import type { FunctionName } from '#infra/function-access.ts';
import { localFunctionScope } from './functions.ts';

/** Queues a message, received no sooner than `delaySeconds` from now. */
export type LocalQueueSender<T> = (message: T, delaySeconds?: number) => Promise<void>;

export interface LocalSqsQueue<T> {
  readonly send: LocalQueueSender<T>;
  /** Sends a copy of a message again, as SQS may (at-least-once delivery). */
  redeliver(message: T): void;
  /** Messages waiting (also those held back by a delay or a pause) or in flight. */
  readonly depth: () => number;
  /** The bodies of the messages the function failed on `maxReceiveCount` times. */
  readonly deadLetters: () => readonly string[];
  /** Resolves once no message is waiting or in flight. */
  idle(): Promise<void>;
  /**
   * While true, every send is refused with SQS's error for an unavailable service (nothing is
   * queued): lets a test see what happens when the queue refuses.
   */
  refuseSends(refusing: boolean): void;
  /** Holds messages back (they stay queued) until `resume`: lets a test see a message before it is received. */
  pause(): void;
  resume(): void;
  /** Disconnects the sender, then waits for the functions still running. */
  stop(): Promise<void>;
}

export interface LocalSqsQueueOptions<T> {
  /** The queue's name, the last part of the ARN its events carry. */
  readonly name: string;
  /** The function the queue feeds, run in its local scope (its variables and grants) as in AWS. */
  readonly functionName: FunctionName;
  readonly handler: (event: SQSEvent) => Promise<SQSBatchResponse>;
  /** How many loops receive and run the function at once. */
  readonly concurrency: number;
  readonly visibilityTimeoutMs: number;
  /** A message the function fails on this many times goes to the dead-letter list. */
  readonly maxReceiveCount: number;
  /**
   * True: as SQS itself, a message whose visibility time-out runs out while the function still
   * runs is received again. False: as a Lambda event source whose function time-out is below the
   * visibility time-out, a message is never received twice at once.
   */
  readonly redeliverWhileRunning?: boolean;
  /** Called with the queue's sender when it starts and with undefined when it stops. */
  readonly connect: (send: LocalQueueSender<T> | undefined) => void;
  /**
   * A folder keeping each message until the function succeeds on it (or it is dead-lettered), read
   * again when the queue starts: what a stop or crash of the process left queued is received after
   * the restart, as SQS keeps it. None: the messages live in memory only.
   */
  readonly journal?: string | undefined;
}

interface Message {
  readonly id: string;
  readonly body: string;
  readonly sentAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  visibleAt: number;
  running: number;
}

/**
 * An in-process SQS queue for the local API and the tests, feeding the same function as in AWS,
 * one message per event: a message is invisible for the visibility time-out from each receive,
 * deleted when the function succeeds on it (no batch item failure, no exception), received again
 * once its visibility runs out when it fails, and moved to the dead-letter list when it fails on
 * its `maxReceiveCount`th receive. A send wakes every idle loop.
 */
export function startLocalSqsQueue<T>(options: LocalSqsQueueOptions<T>): LocalSqsQueue<T> {
  const { visibilityTimeoutMs, maxReceiveCount } = options;
  const messages: Message[] = [];
  const deadLetters: string[] = [];
  const sleepers = new Set<() => void>();
  let idleWaiters: (() => void)[] = [];
  let stopped = false;
  let paused = false;
  const journal = options.journal;
  const keep = (message: Message) => {
    if (!journal) return;
    // Written aside and renamed, so a crash never leaves half a message.
    const file = join(journal, `${message.id}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify({ body: message.body, sentAt: message.sentAt, visibleAt: message.visibleAt }));
    renameSync(`${file}.tmp`, file);
  };
  const forget = (message: Message) => {
    if (journal) rmSync(join(journal, `${message.id}.json`), { force: true });
  };
  if (journal) {
    mkdirSync(journal, { recursive: true });
    for (const name of readdirSync(journal).filter((file) => file.endsWith('.json'))) {
      const kept = JSON.parse(readFileSync(join(journal, name), 'utf8')) as { body: string; sentAt: number; visibleAt: number };
      messages.push({
        id: name.slice(0, -'.json'.length),
        body: kept.body,
        sentAt: kept.sentAt,
        receiveCount: 0,
        visibleAt: kept.visibleAt,
        running: 0,
      });
    }
  }

  const wakeAll = () => {
    for (const wake of sleepers) wake();
  };
  const receivable = (message: Message) => options.redeliverWhileRunning || message.running === 0;

  function nextVisible(): Message | undefined {
    if (paused) return undefined;
    const now = Date.now();
    return messages.find((message) => receivable(message) && message.visibleAt <= now);
  }

  function sleep(): Promise<void> {
    let until = Date.now() + 1_000;
    if (!paused) for (const message of messages) if (receivable(message)) until = Math.min(until, message.visibleAt);
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(5, until - Date.now()));
      sleepers.add(wake);
    });
  }

  async function receive(message: Message): Promise<void> {
    const now = Date.now();
    message.receiveCount++;
    message.firstReceivedAt ??= now;
    message.visibleAt = now + visibilityTimeoutMs;
    message.running++;
    const event = sqsEvent(options.name, message);
    const failed = await runAsFunction(localFunctionScope(options.functionName), () => options.handler(event)).then(
      (result) => result.batchItemFailures.length > 0,
      () => true,
    );
    message.running--;
    const index = messages.indexOf(message);
    // Already deleted by another receive of the same message.
    if (index === -1) return;
    if (!failed || message.receiveCount >= maxReceiveCount) {
      messages.splice(index, 1);
      forget(message);
      if (failed) deadLetters.push(message.body);
      if (messages.length === 0) {
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
      }
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const message = nextVisible();
      await (message ? receive(message) : sleep());
    }
  }

  const enqueue = (message: T, delaySeconds = 0) => {
    const now = Date.now();
    const queued: Message = {
      id: randomUUID(),
      body: JSON.stringify(message),
      sentAt: now,
      receiveCount: 0,
      visibleAt: now + delaySeconds * 1000,
      running: 0,
    };
    keep(queued);
    messages.push(queued);
    wakeAll();
  };
  let refusing = false;
  const send: LocalQueueSender<T> = async (message, delaySeconds) => {
    if (refusing)
      throw Object.assign(new Error(`The ${options.name} queue refused the message (refusing sends)`), {
        name: 'ServiceUnavailable',
        $metadata: { httpStatusCode: 503 },
      });
    enqueue(message, delaySeconds);
  };
  options.connect(send);
  const loops = Array.from({ length: options.concurrency }, () => loop());

  return {
    send,
    redeliver: (message) => enqueue(message),
    depth: () => messages.length,
    deadLetters: () => [...deadLetters],
    idle: () => (messages.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    refuseSends: (value) => {
      refusing = value;
    },
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      wakeAll();
    },
    stop: async () => {
      stopped = true;
      options.connect(undefined);
      wakeAll();
      await Promise.all(loops);
    },
  };
}

function sqsEvent(queueName: string, message: Message): SQSEvent {
  return {
    Records: [
      {
        messageId: message.id,
        receiptHandle: `${message.id}:${message.receiveCount}`,
        body: message.body,
        attributes: {
          ApproximateReceiveCount: String(message.receiveCount),
          SentTimestamp: String(message.sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:local:000000000000:${queueName}`,
        awsRegion: 'local',
      },
    ],
  };
}
