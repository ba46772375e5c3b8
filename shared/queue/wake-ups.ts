import { describeRunningFunction, setting } from '#shared/environment.ts';
import { sendSqsMessage } from '#shared/sqs-send.ts';

/**
 * Wakes the grading workers for a newly queued job. In AWS the wake-up is an SQS message to the
 * worker function (GRADING_QUEUE_URL); on the local API an in-process queue with the same
 * semantics feeds the same worker code. A wake-up names a ticket only for the logs: workers always
 * take the oldest queued job, so a lost wake-up delays grading and never loses a job.
 */
type Sender = (ticket: number) => Promise<void>;

let localSender: Sender | undefined;

export function useLocalQueue(sender: Sender | undefined): void {
  localSender = sender;
}

export async function notifyWorkers(ticket: number): Promise<void> {
  const queueUrl = setting('GRADING_QUEUE_URL');
  if (!queueUrl)
    throw new Error(`The grading queue is not in the environment of ${describeRunningFunction()}: GRADING_QUEUE_URL is not set.`);
  if (queueUrl.startsWith('local:')) {
    await localSender?.(ticket);
    return;
  }
  await sendSqsMessage(queueUrl, JSON.stringify({ ticket }));
}
