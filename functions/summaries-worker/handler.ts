import { sqsBatchHandler } from '#shared/sqs-batch.ts';
import { runSummariesJob } from '#shared/summaries/job.ts';
import type { SummariesJobMessage } from '#shared/summaries/queue.ts';

/**
 * The summaries worker, fed by the summaries queue (SQS in AWS, an in-process queue locally): each
 * message names a summaries job, which it generates page by page. A failure to record the job's
 * outcome leaves the message to come back; after three receives it moves to the dead-letter queue.
 */
export const handler = sqsBatchHandler('Summaries job message failed', async (record) => {
  await runSummariesJob(JSON.parse(record.body) as SummariesJobMessage);
});
