import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from './logger.ts';

/**
 * The handler of a function fed by an SQS queue (with `reportBatchItemFailures`), on Powertools'
 * batch processor: `processRecord` runs on each record of the batch, one after the other in the
 * batch's order; a record it throws on is logged as `failureMessage` with its message id and
 * reported as a batch item failure, so SQS deletes the others and delivers that one again. A
 * batch whose every record failed is answered the same way rather than thrown: the function's
 * errors alarm stays for faults of the function itself.
 */
export function sqsBatchHandler(
  failureMessage: string,
  processRecord: (record: SQSRecord) => Promise<void>,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const logged = async (record: SQSRecord) => {
    try {
      await processRecord(record);
    } catch (error) {
      logger.error({ message: failureMessage, messageId: record.messageId, error: error as Error });
      throw error;
    }
  };
  return async (event) => {
    // A processor holds one batch's state: one per invocation, as the local queues run several at once.
    const processor = new BatchProcessor(EventType.SQS);
    const response = await processPartialResponse(event, logged, processor, { processInParallel: false, throwOnFullBatchFailure: false });
    return { batchItemFailures: [...response.batchItemFailures] };
  };
}
