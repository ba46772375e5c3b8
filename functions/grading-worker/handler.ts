import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { logger } from '#shared/logger.ts';
import { sqsBatchHandler } from '#shared/sqs-batch.ts';

/**
 * The grading worker, fed by the grading queue (SQS in AWS, an in-process queue locally). Each
 * message is a wake-up: the worker grades the oldest job. A failure leaves the message to come
 * back after the visibility time-out; the job's lease lets the next worker take it over.
 */
export const handler = sqsBatchHandler('Grading failed', async (record) => {
  const outcome = await gradeNextJob();
  logger.info({ message: 'Grading wake-up', outcome, messageId: record.messageId });
});
