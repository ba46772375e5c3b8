import { handler } from '#functions/summaries-worker/handler.ts';
import { SUMMARIES_JOB_MAX_DELIVERIES, useLocalSummariesQueue, type SummariesQueueMessage } from '#shared/summaries/queue.ts';
import { SUMMARIES_WORKER_FUNCTION } from '#infra/function-access.ts';
import { startLocalSqsQueue, type LocalSqsQueue } from './sqs-queue.ts';

export type LocalSummariesQueue = LocalSqsQueue<SummariesQueueMessage>;

/** The summaries queue of the local API: one loop runs the summaries worker. */
export function startLocalSummariesQueue(): LocalSummariesQueue {
  return startLocalSqsQueue({
    name: 'summaries',
    functionName: SUMMARIES_WORKER_FUNCTION,
    handler,
    concurrency: 1,
    visibilityTimeoutMs: 5_000,
    maxReceiveCount: SUMMARIES_JOB_MAX_DELIVERIES,
    connect: useLocalSummariesQueue,
  });
}
