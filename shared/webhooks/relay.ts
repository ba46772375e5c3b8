import { outboxEntries } from '#shared/data/webhook-outbox.ts';
import { logger } from '#shared/logger.ts';
import { sendEntry, type EntrySender } from './publish.ts';

/** Entries younger than this are left to the function that wrote them, which sends them at once. */
export const OUTBOX_GRACE_MS = 2_000;
/** Entries one run reads at most (the next run takes the rest). */
export const OUTBOX_BATCH = 500;

export interface RelayReport {
  /** Messages put on the webhook queue. */
  readonly relayed: number;
  /** Entries left: too young, refused by the queue, or beyond this run's batch. */
  readonly left: number;
}

/**
 * One run of the outbox relay: every entry older than the grace is sent to its queue and removed;
 * an entry of another queue than the webhook queue (`senders`, by the entry's `queue`) is sent
 * whatever its age, as nothing else sends it. The first message a queue refuses ends the run (the
 * queue is refusing); the entries stay for the next run. Throws then, so the run counts as failed.
 */
export async function relayOutbox(now = new Date(), senders: Readonly<Record<string, EntrySender>> = {}): Promise<RelayReport> {
  const { entries, more } = await outboxEntries(OUTBOX_BATCH);
  const due = entries.filter((entry) =>
    entry.queue === undefined ? now.getTime() - Date.parse(entry.recordedAt) >= OUTBOX_GRACE_MS : senders[entry.queue] !== undefined,
  );
  let relayed = 0;
  for (const entry of due) {
    if (!(await sendEntry(entry, entry.queue === undefined ? undefined : senders[entry.queue]))) {
      const report = { relayed, left: entries.length - relayed };
      logger.error({ message: 'The webhook queue refuses messages; they wait in the outbox', ...report });
      throw new Error(`The webhook queue refused a message: ${report.left} wait in the outbox`);
    }
    relayed++;
  }
  const report = { relayed, left: entries.length - relayed + (more ? 1 : 0) };
  if (relayed > 0) logger.info({ message: 'Webhook messages relayed from the outbox', ...report });
  return report;
}
