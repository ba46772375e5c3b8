import { handler } from '#functions/lti-score/handler.ts';
import { useLocalLtiScoreQueue, type LtiScoreMessage } from '#shared/lti/score-queue.ts';
import { LTI_SCORE_FUNCTION } from '#infra/function-access.ts';
import { startLocalSqsQueue, type LocalSqsQueue } from './sqs-queue.ts';

export type LocalLtiScoreQueue = LocalSqsQueue<LtiScoreMessage>;

/** The LTI score queue of the local API (per-message delays, as in SQS): two loops run the lti-score function. */
export function startLocalLtiScoreQueue(): LocalLtiScoreQueue {
  return startLocalSqsQueue({
    name: 'lti-scores',
    functionName: LTI_SCORE_FUNCTION,
    handler,
    concurrency: 2,
    visibilityTimeoutMs: 10_000,
    maxReceiveCount: 5,
    connect: useLocalLtiScoreQueue,
  });
}
