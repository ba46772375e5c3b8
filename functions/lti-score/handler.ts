import { handleLtiScoreMessage } from '#shared/gradebook/lti-scores.ts';
import { logger } from '#shared/logger.ts';
import { scorePlatform } from '#shared/lti/score-platform.ts';
import type { LtiScoreMessage } from '#shared/lti/score-queue.ts';
import { sqsBatchHandler } from '#shared/sqs-batch.ts';

/**
 * The lti-score function, fed by the LTI score queue (SQS in AWS, an in-process queue locally):
 * sends grades to the linked LMS courses and makes each retry. A failure leaves the message to
 * come back; after five receives it moves to the dead-letter queue.
 */
export const handler = sqsBatchHandler('LTI score message failed', async (record) => {
  const message = JSON.parse(record.body) as LtiScoreMessage;
  const outcome = await handleLtiScoreMessage(message, Number(record.attributes.ApproximateReceiveCount ?? 1), scorePlatform);
  logger.info({ message: 'LTI score message', kind: message.kind, outcome, messageId: record.messageId });
});
