import { outboxPut, removeOutboxEntry, type OutboxEntry } from '#shared/data/webhook-outbox.ts';
import type { TransactItem } from '#shared/data/transactions.ts';
import { setting } from '#shared/environment.ts';
import { logger } from '#shared/logger.ts';
import { sendWebhookMessage, type WebhookMessage } from './queue.ts';
import { newMessageId, type WebhookEvent, type WebhookEventType } from './webhook.ts';

/**
 * Publishing webhook messages through the outbox: each message is written, as an outbox entry, in
 * the very transaction that records what it tells (a grade, a summaries switch, a replay), so it
 * exists exactly when that happened. Once the transaction is in, `send` puts the messages on the
 * webhook queue and removes their entries; a message the queue refuses stays in the outbox, and
 * the webhook-relay function (every minute in AWS, every second locally) sends it later
 * (relay.ts). A message may so reach the queue twice; its id is kept, and the delivery function
 * makes one delivery per event and webhook.
 */
export interface Outbox {
  /** The outbox entries, for the caller's transaction. */
  readonly items: TransactItem[];
  /** After the transaction: queue the messages now, leaving any the queue refuses to the relay. */
  send(): Promise<void>;
}

/** The outbox id of a message: an event's own id; an attempt's names its delivery and place. */
export const outboxId = (message: WebhookMessage): string =>
  message.kind === 'event' ? message.event.id : `${message.deliveryId}/${message.webhookId}/${message.after}`;

/**
 * The outbox of `messages`. A process without a webhook queue (a test of the grading code alone)
 * publishes nothing.
 */
export function webhookOutbox(messages: readonly WebhookMessage[], now = new Date()): Outbox {
  if (!setting('WEBHOOK_QUEUE_URL') || messages.length === 0) return { items: [], send: async () => undefined };
  const entries = messages.map((message) => ({
    message,
    entry: { messageId: outboxId(message), body: JSON.stringify(message), recordedAt: now.toISOString() },
  }));
  return {
    items: entries.map(({ entry }) => outboxPut(entry)),
    send: async () => {
      for (const { message, entry } of entries) {
        if (!(await sendEntry(entry, () => sendWebhookMessage(message)))) return;
      }
    },
  };
}

/** Sends an outbox entry's message to its queue (throws when the queue refuses it). */
export type EntrySender = (entry: OutboxEntry) => Promise<void>;

/** The webhook queue's sender: an entry whose `queue` names no other queue holds a webhook message. */
const toWebhookQueue: EntrySender = (entry) => sendWebhookMessage(JSON.parse(entry.body) as WebhookMessage);

/**
 * Queues an entry's message and removes the entry; false when the queue refused it (logged: the
 * relay sends it later), so the caller leaves the rest to the relay too.
 */
export async function sendEntry(entry: OutboxEntry, send: EntrySender = toWebhookQueue): Promise<boolean> {
  try {
    await send(entry);
  } catch (error) {
    logger.warn({
      message: 'The queue refused a message; it waits in the outbox',
      messageId: entry.messageId,
      ...(entry.queue ? { queue: entry.queue } : {}),
      error: error as Error,
    });
    return false;
  }
  try {
    await removeOutboxEntry(entry.messageId);
  } catch (error) {
    // Queued: the relay queues it once more, and the receiving function drops the copy.
    logger.warn({ message: 'A queued message stays in the outbox', messageId: entry.messageId, error: error as Error });
  }
  return true;
}

/** A new event of a course; its id stays with it through every retry and delivery. */
export function courseEvent(
  type: WebhookEventType,
  course: { term: string; course: string },
  data: Record<string, unknown>,
  now = new Date(),
): WebhookEvent {
  return { id: newMessageId(now), type, timestamp: now.toISOString(), term: course.term, course: course.course, data };
}

/** `submission.graded` or `submission.failed`: the worker recorded the outcome of a version. */
export function gradingOutcomeEvent(
  job: { term: string; course: string; gradeableId: string; ownerId: string; version: number },
  state: 'graded' | 'failed',
  outcome: { points: number; message?: string; commit?: string },
  now = new Date(),
): WebhookEvent {
  return courseEvent(
    state === 'graded' ? 'submission.graded' : 'submission.failed',
    job,
    {
      gradeable_id: job.gradeableId,
      owner_id: job.ownerId,
      version: job.version,
      points: outcome.points,
      message: outcome.message ?? null,
      // The commit graded (none before a checkout, or for a local folder without history).
      commit: outcome.commit ?? null,
    },
    now,
  );
}

/** `summaries.generated`: a course's new generation of grade summaries is current. */
export function summariesGeneratedEvent(
  course: { term: string; course: string },
  report: { summaries: number; generated_at: string; generation: string },
  now = new Date(),
): WebhookEvent {
  return courseEvent(
    'summaries.generated',
    course,
    { summaries: report.summaries, generated_at: report.generated_at, generation: report.generation },
    now,
  );
}

/** `similarity.completed`: a similarity run of a gradeable is done, its pairs ready to review. */
export function similarityCompletedEvent(
  run: { term: string; course: string; gradeableId: string; runId: string },
  report: { submissions: number; pairs: number },
  now = new Date(),
): WebhookEvent {
  return courseEvent(
    'similarity.completed',
    run,
    { gradeable_id: run.gradeableId, run_id: run.runId, submissions: report.submissions, pairs_kept: report.pairs },
    now,
  );
}

/**
 * `inquiry.opened` (a student opened a grade inquiry, or someone reopened it) or `inquiry.resolved`:
 * recorded with the change itself, so it exists exactly when the change does.
 */
export function inquiryEvent(
  inquiry: { term: string; course: string; inquiryId: string; gradeableId: string; ownerId: string; componentId: number | null },
  change: { status: 'open' | 'resolved'; by: string; reopened: boolean },
  now = new Date(),
): WebhookEvent {
  return courseEvent(
    change.status === 'open' ? 'inquiry.opened' : 'inquiry.resolved',
    inquiry,
    {
      inquiry_id: inquiry.inquiryId,
      gradeable_id: inquiry.gradeableId,
      owner_id: inquiry.ownerId,
      component_id: inquiry.componentId,
      by: change.by,
      ...(change.status === 'open' ? { reopened: change.reopened } : {}),
    },
    now,
  );
}

/** The outbox of one event. */
export const eventOutbox = (event: WebhookEvent): Outbox => webhookOutbox([{ kind: 'event', event }]);
