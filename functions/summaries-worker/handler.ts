import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/logger.ts';
import { runSummariesJob } from '#shared/summaries/job.ts';
import type { SummariesJobMessage } from '#shared/summaries/queue.ts';

/**
 * The summaries worker, fed by the summaries queue (SQS in AWS, an in-process queue locally): each
 * message names a summaries job, which it generates page by page. A failure to record the job's
 * outcome leaves the message to come back; after three receives it moves to the dead-letter queue.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await runSummariesJob(JSON.parse(record.body) as SummariesJobMessage);
    } catch (error) {
      logger.error({ message: 'Summaries job message failed', messageId: record.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
