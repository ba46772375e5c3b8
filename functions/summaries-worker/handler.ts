import { sqsBatchHandler } from '#shared/sqs-batch.ts';
import { runGradebookExport } from '#shared/gradebook/exports.ts';
import { runSummariesJob } from '#shared/summaries/job.ts';
import type { SummariesJobMessage, SummariesQueueMessage } from '#shared/summaries/queue.ts';

/**
 * The summaries worker, fed by the summaries queue (SQS in AWS, an in-process queue locally): each
 * message names a summaries job, which it generates page by page, a gradebook export, which it
 * writes page by page of students, or a similarity run, which compares a gradeable's submissions. A failure to record the job's
 * outcome leaves the message to come back; after three receives it moves to the dead-letter queue.
 */
export const handler = sqsBatchHandler('Summaries job message failed', async (record) => {
  const message = JSON.parse(record.body) as SummariesQueueMessage;
  if ('kind' in message && message.kind === 'gradebook-export') await runGradebookExport(message);
  // Loaded for the first run only: the parsers stay out of the other jobs' start.
  else if ('kind' in message && message.kind === 'similarity-run') await (await import('#shared/similarity/job.ts')).runSimilarity(message);
  else await runSummariesJob(message as SummariesJobMessage);
});
