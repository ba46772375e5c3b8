import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '#shared/logger.ts';
import { sqsBatchHandler } from '#shared/sqs-batch.ts';

/** An SQS event of messages with these ids, as Lambda's event source sends a batch. */
function sqsEvent(...ids: string[]): SQSEvent {
  return {
    Records: ids.map((messageId): SQSRecord => ({
      messageId,
      receiptHandle: `receipt-${messageId}`,
      body: JSON.stringify({ id: messageId }),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test-queue',
      awsRegion: 'us-east-1',
    })),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('an SQS-fed function’s batch', () => {
  it('is processed one record after the other, in the batch’s order', async () => {
    const steps: string[] = [];
    const handler = sqsBatchHandler('failed', async (record) => {
      steps.push(`start ${record.messageId}`);
      // The first record takes longest: in parallel, the others would start before it ends.
      await pause(record.messageId === 'a' ? 50 : 1);
      steps.push(`end ${record.messageId}`);
    });
    expect(await handler(sqsEvent('a', 'b', 'c'))).toEqual({ batchItemFailures: [] });
    expect(steps).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('reports exactly the records that threw, each logged with its message id, and processes the rest', async () => {
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const processed: string[] = [];
    const handler = sqsBatchHandler('Queue message failed', async (record) => {
      processed.push(record.messageId);
      if (record.messageId !== 'b') throw new Error(`no ${record.messageId}`);
    });
    expect(await handler(sqsEvent('a', 'b', 'c'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'c' }] });
    expect(processed).toEqual(['a', 'b', 'c']);
    expect(error.mock.calls).toEqual([
      [{ message: 'Queue message failed', messageId: 'a', error: new Error('no a') }],
      [{ message: 'Queue message failed', messageId: 'c', error: new Error('no c') }],
    ]);
  });

  it('reports a batch that failed whole as failures rather than throwing', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const handler = sqsBatchHandler('failed', async () => {
      throw new Error('down');
    });
    expect(await handler(sqsEvent('a', 'b'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }] });
    expect(await handler(sqsEvent())).toEqual({ batchItemFailures: [] });
  });

  it('keeps invocations running at once apart (the local queues run several in one process)', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const handler = sqsBatchHandler('failed', async (record) => {
      await pause(record.messageId.startsWith('slow') ? 50 : 1);
      if (record.messageId.endsWith('bad')) throw new Error('bad');
    });
    const [slow, fast] = await Promise.all([handler(sqsEvent('slow-ok', 'slow-bad')), handler(sqsEvent('fast-bad', 'fast-ok'))]);
    expect(slow).toEqual({ batchItemFailures: [{ itemIdentifier: 'slow-bad' }] });
    expect(fast).toEqual({ batchItemFailures: [{ itemIdentifier: 'fast-bad' }] });
  });
});
