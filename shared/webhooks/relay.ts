import { outboxEntries } from '#shared/data/webhook-outbox.ts';
import { logger } from '#shared/logger.ts';
import { sendEntry } from './publish.ts';

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
 * One run of the outbox relay: every entry older than the grace is sent to the webhook queue and
 * removed. The first message the queue refuses ends the run (the queue is refusing); the entries
 * stay for the next run. Throws then, so the run counts as failed.
 */
export async function relayOutbox(now = new Date()): Promise<RelayReport> {
  const { entries, more } = await outboxEntries(OUTBOX_BATCH);
  const due = entries.filter((entry) => now.getTime() - Date.parse(entry.recordedAt) >= OUTBOX_GRACE_MS);
  let relayed = 0;
  for (const entry of due) {
    if (!(await sendEntry(entry))) {
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
