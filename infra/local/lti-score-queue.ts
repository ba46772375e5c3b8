import { handler } from '#functions/lti-score/handler.ts';
import { useLocalLtiScoreQueue, type LtiScoreMessage } from '#shared/lti/score-queue.ts';
import { LTI_SCORE_FUNCTION } from '#infra/function-access.ts';
import { startLocalSqsQueue, type LocalSqsQueue } from './sqs-queue.ts';

export type LocalLtiScoreQueue = LocalSqsQueue<LtiScoreMessage>;

/**
 * The LTI score queue of the local API (per-message delays, as in SQS): two loops run the lti-score
 * function. With a journal folder its messages outlive a stop or crash of the process: a grade's
 * message the relay took out of the outbox, a retry waiting, a publish or late-days page under way.
 */
export function startLocalLtiScoreQueue(journal?: string): LocalLtiScoreQueue {
  return startLocalSqsQueue({
    journal,
    name: 'lti-scores',
    functionName: LTI_SCORE_FUNCTION,
    handler,
    concurrency: 2,
    visibilityTimeoutMs: 10_000,
    maxReceiveCount: 5,
    connect: useLocalLtiScoreQueue,
  });
}
