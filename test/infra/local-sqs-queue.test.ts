import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { currentScope } from '#shared/environment.ts';
import { SUMMARIES_WORKER_FUNCTION } from '#infra/function-access.ts';
import { startLocalSqsQueue, type LocalQueueSender, type LocalSqsQueue, type LocalSqsQueueOptions } from '#infra/local/sqs-queue.ts';

interface Receive {
  readonly record: SQSRecord;
  readonly at: number;
  readonly functionName: string | undefined;
}

const queues: LocalSqsQueue<unknown>[] = [];
afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.stop()));
});

/** A queue whose function records each receive and answers with `outcome` (throwing is failing too). */
function queue(
  outcome: (record: SQSRecord, receives: readonly Receive[]) => Promise<'ok' | 'fail'> | 'ok' | 'fail',
  options: Partial<LocalSqsQueueOptions<unknown>> = {},
) {
  const receives: Receive[] = [];
  let sender: LocalQueueSender<unknown> | undefined;
  const started = startLocalSqsQueue<unknown>({
    name: 'test',
    functionName: SUMMARIES_WORKER_FUNCTION,
    concurrency: 1,
    visibilityTimeoutMs: 200,
    maxReceiveCount: 3,
    connect: (send) => (sender = send),
    handler: async (event: SQSEvent): Promise<SQSBatchResponse> => {
      const [record] = event.Records;
      if (!record) throw new Error('an event without a record');
      receives.push({ record, at: Date.now(), functionName: currentScope()?.functionName });
      const failed = (await outcome(record, receives)) === 'fail';
      return { batchItemFailures: failed ? [{ itemIdentifier: record.messageId }] : [] };
    },
    ...options,
  });
  queues.push(started);
  return { queue: started, receives, sender: () => sender };
}

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(5);
  }
}

describe('the local SQS queue', () => {
  it('runs the function as the named function on each message once and deletes it when the function succeeds', async () => {
    const { queue: q, receives, sender } = queue(() => 'ok');
    await sender()?.({ n: 1 });
    await q.idle();
    expect(q.depth()).toBe(0);
    expect(receives.map(({ record, functionName }) => [record.body, record.attributes.ApproximateReceiveCount, functionName])).toEqual([
      ['{"n":1}', '1', SUMMARIES_WORKER_FUNCTION],
    ]);
    expect(receives[0]?.record.eventSourceARN).toBe('arn:aws:sqs:local:000000000000:test');
    await sleep(300);
    expect(receives).toHaveLength(1);
    expect(q.deadLetters()).toEqual([]);
  });

  it('receives a message the function failed on again once its visibility time-out from the receive has passed', async () => {
    const { queue: q, receives } = queue((_, so) => (so.length === 1 ? 'fail' : 'ok'));
    await q.send({ n: 2 });
    await q.idle();
    const [first, second] = receives;
    expect(receives.map(({ record }) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    // Visibility runs from the receive, which the queue stamps just before the function starts.
    const firstReceivedAt = Number(second!.record.attributes.ApproximateFirstReceiveTimestamp);
    expect(first!.at).toBeGreaterThanOrEqual(firstReceivedAt);
    expect(second!.at - firstReceivedAt).toBeGreaterThanOrEqual(200);
    expect(second!.record.messageId).toBe(first!.record.messageId);
    expect(q.deadLetters()).toEqual([]);
  });

  it('moves a message to the dead letters when the function fails on its maxReceiveCount-th receive (throwing counts as failing)', async () => {
    const { queue: q, receives } = queue(
      () => {
        throw new Error('always');
      },
      { visibilityTimeoutMs: 20 },
    );
    await q.send({ n: 3 });
    await q.idle();
    expect(receives).toHaveLength(3);
    expect(q.deadLetters()).toEqual(['{"n":3}']);
    expect(q.depth()).toBe(0);
  });

  it('holds a delayed message back for its delay while later messages go first', async () => {
    const { queue: q, receives } = queue(() => 'ok');
    const sent = Date.now();
    await q.send({ n: 'delayed' }, 0.3);
    await q.send({ n: 'now' });
    await until(() => q.depth() === 1);
    expect(receives.map(({ record }) => record.body)).toEqual(['{"n":"now"}']);
    await q.idle();
    expect(receives[1]!.record.body).toBe('{"n":"delayed"}');
    expect(receives[1]!.at - sent).toBeGreaterThanOrEqual(300);
  });

  it('wakes every idle loop when messages arrive', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { queue: q, receives } = queue(async () => (await released, 'ok' as const), { concurrency: 3, visibilityTimeoutMs: 10_000 });
    // Every loop is asleep (up to a second) on an empty queue.
    await sleep(50);
    const sent = Date.now();
    await Promise.all([1, 2, 3].map((n) => q.send({ n })));
    await until(() => receives.length === 3);
    expect(Date.now() - sent).toBeLessThan(500);
    release();
    await q.idle();
  });

  it('never receives a message twice at once, unless redeliverWhileRunning (as SQS itself)', async () => {
    const slow = async () => (await sleep(300), 'ok' as const);
    const lambda = queue(slow, { concurrency: 2, visibilityTimeoutMs: 50 });
    const sqs = queue(slow, { concurrency: 2, visibilityTimeoutMs: 50, redeliverWhileRunning: true });
    await Promise.all([lambda.queue.send({}), sqs.queue.send({})]);
    await Promise.all([lambda.queue.idle(), sqs.queue.idle()]);
    expect(lambda.receives).toHaveLength(1);
    expect(sqs.receives.map(({ record }) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
  });

  it('holds messages back while paused; stop disconnects the sender', async () => {
    const { queue: q, receives, sender } = queue(() => 'ok');
    q.pause();
    await q.send({ n: 4 });
    await sleep(100);
    expect([receives.length, q.depth()]).toEqual([0, 1]);
    q.resume();
    await q.idle();
    expect(receives).toHaveLength(1);
    await q.stop();
    expect(sender()).toBeUndefined();
  });

  it('with a journal, keeps what was queued across a stop: received after the restart, with what is left of its delay; a message handled is gone', async () => {
    const journal = await mkdtemp(join(tmpdir(), 'local-queue-journal-'));
    try {
      // The first process: one message handled, one still held back by its delay when it stops.
      const first = queue(() => 'ok', { journal });
      await first.sender()?.({ n: 'handled' });
      await until(() => first.receives.length === 1);
      const sentAt = Date.now();
      await first.sender()?.({ n: 'delayed' }, 0.5);
      await first.queue.stop();
      expect(first.receives.map(({ record }) => record.body)).toEqual(['{"n":"handled"}']);
      expect(await readdir(journal)).toHaveLength(1);

      const restartedAt = Date.now();
      const second = queue(() => 'ok', { journal });
      expect(second.queue.depth()).toBe(1);
      await second.queue.idle();
      expect(second.receives.map(({ record }) => record.body)).toEqual(['{"n":"delayed"}']);
      // The same message, sent by the first process, and held back for its delay from that send.
      const [received] = second.receives;
      expect(Number(received!.record.attributes.SentTimestamp)).toBeGreaterThanOrEqual(sentAt);
      expect(Number(received!.record.attributes.SentTimestamp)).toBeLessThanOrEqual(restartedAt);
      expect(received!.at).toBeGreaterThanOrEqual(sentAt + 500);
      expect(await readdir(journal)).toEqual([]);

      // A message dead-lettered is not kept either.
      const third = queue(() => 'fail', { journal, maxReceiveCount: 1 });
      await third.sender()?.({ n: 'poison' });
      await third.queue.idle();
      expect(third.queue.deadLetters()).toEqual(['{"n":"poison"}']);
      expect(await readdir(journal)).toEqual([]);
    } finally {
      await rm(journal, { recursive: true, force: true });
    }
  });
});
