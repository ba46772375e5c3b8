import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { gradeNextJob } from '#shared/grading/worker.ts';
import { logger } from '#shared/logger.ts';

/**
 * The grading worker, fed by the grading queue (SQS in AWS, an in-process queue locally). Each
 * message is a wake-up: the worker grades the oldest job. A failure leaves the message to come
 * back after the visibility time-out; the job's lease lets the next worker take it over.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const outcome = await gradeNextJob();
      logger.info({ message: 'Grading wake-up', outcome, messageId: record.messageId });
    } catch (error) {
      logger.error({ message: 'Grading failed', messageId: record.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
