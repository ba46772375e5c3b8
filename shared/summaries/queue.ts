import { describeRunningFunction, setting } from '#shared/environment.ts';
import { sendSqsMessage } from '#shared/sqs-send.ts';

/**
 * The summaries queue: one message per summaries job, gradebook export or similarity run, naming it. In AWS it is SQS
 * (SUMMARIES_QUEUE_URL), delivering to the summaries-worker function; on the local API an
 * in-process queue (infra/local/summaries-queue.ts) feeds the same function code. A message may
 * be delivered more than once: the worker acts on a job only while it is queued, or running under
 * a lease that ran out.
 */
export interface SummariesJobMessage {
  readonly term: string;
  readonly course: string;
  readonly jobId: string;
}

/** A gradebook export's message (shared/gradebook/exports.ts): the same queue and worker as the summaries, a job of its own kind. */
export interface GradebookExportMessage {
  readonly kind: 'gradebook-export';
  readonly term: string;
  readonly course: string;
  readonly exportId: string;
}

/** A similarity run's message (shared/similarity/runs.ts): the same queue and worker, a job of its own kind. */
export interface SimilarityRunMessage {
  readonly kind: 'similarity-run';
  readonly term: string;
  readonly course: string;
  readonly runId: string;
}

/** What the summaries queue carries. */
export type SummariesQueueMessage = SummariesJobMessage | GradebookExportMessage | SimilarityRunMessage;

/** Deliveries of a job's message before the queue gives up on it (its dead-letter queue's maxReceiveCount). */
export const SUMMARIES_JOB_MAX_DELIVERIES = 3;

type Sender = (message: SummariesQueueMessage) => Promise<void>;

let localSender: Sender | undefined;

export function useLocalSummariesQueue(sender: Sender | undefined): void {
  localSender = sender;
}

export async function sendSummariesJob(message: SummariesQueueMessage): Promise<void> {
  const queueUrl = setting('SUMMARIES_QUEUE_URL');
  if (!queueUrl)
    throw new Error(`The summaries queue is not in the environment of ${describeRunningFunction()}: SUMMARIES_QUEUE_URL is not set.`);
  if (queueUrl.startsWith('local:')) {
    if (!localSender) throw new Error('The local summaries queue is not running.');
    await localSender(message);
    return;
  }
  await sendSqsMessage(queueUrl, JSON.stringify(message));
}
