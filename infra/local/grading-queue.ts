import { handler } from '#functions/grading-worker/handler.ts';
import { useLocalQueue } from '#shared/queue/wake-ups.ts';
import { GRADING_WORKER_FUNCTION } from '#infra/function-access.ts';
import { startLocalSqsQueue, type LocalSqsQueue } from './sqs-queue.ts';

export type LocalGradingQueue = LocalSqsQueue<{ ticket: number }>;

/**
 * The grading queue of the local API: `workers` loops run the worker function on its wake-ups. As
 * in SQS, a wake-up still being graded when its visibility runs out is received again: a wake-up
 * only says "grade the oldest job".
 */
export function startLocalGradingQueue(options: { workers?: number } = {}): LocalGradingQueue {
  return startLocalSqsQueue({
    name: 'grading',
    functionName: GRADING_WORKER_FUNCTION,
    handler,
    concurrency: options.workers ?? Number(process.env.GRADING_WORKERS ?? 1),
    visibilityTimeoutMs: 30_000,
    maxReceiveCount: 3,
    redeliverWhileRunning: true,
    connect: (send) => useLocalQueue(send && ((ticket) => send({ ticket }))),
  });
}
