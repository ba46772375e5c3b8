/**
 * A regrade's writes: the versions it queues again, `REGRADE_CHUNK` per transaction, each chunk
 * tried until it goes through. Each try draws the chunk's tickets on a queue counter at random
 * (without reading the queue), plans the chunk (regrade-plan.ts) and writes it, all or nothing, so
 * a ticket never exists without its job; a cancelled try does what AFTER_REGRADE_CANCELLED says of
 * the items that failed.
 */
import { closeRegrade, putRegrade, type RegradeRecord } from '#shared/data/regrades.ts';
import { failedConditions, isConflictOnly, transactWrite } from '#shared/data/transactions.ts';
import { chunks } from '#shared/lists.ts';
import { anyShard } from '#shared/queue/tickets.ts';
import { notifyWorkers } from '#shared/queue/wake-ups.ts';
import { afterRegradeCancelled, planRegradeChunk, regradeTransaction, type RegradeTarget } from './regrade-plan.ts';

/**
 * Versions re-queued per transaction: a job and a version update per version, the queue counter
 * taking their tickets and the regrade's counts: 2 × 41 + 1 + 1 = 84 items, within DynamoDB's
 * limit of 100, and 41 tickets within one millisecond of one counter (TICKETS_PER_MS).
 */
export const REGRADE_CHUNK = 41;

const MAX_ATTEMPTS = 100;

export class RegradeCommit {
  /** Whether a chunk went through, creating the regrade item. */
  private created = false;
  /** Versions queued by the chunks that went through. */
  private queued = 0;
  /** Versions found queued meanwhile by the chunks that went through. */
  private skippedLater = 0;
  private readonly record: RegradeRecord;

  /** `record`: the regrade as it is created, counting the versions skipped when selected. */
  constructor(record: RegradeRecord) {
    this.record = record;
  }

  /** Queues `requeue` again; the regrade as written (workers may have ended some jobs since). */
  async run(requeue: readonly RegradeTarget[]): Promise<RegradeRecord> {
    try {
      for (const chunk of chunks(requeue, REGRADE_CHUNK)) await this.chunk(chunk);
    } catch (error) {
      // Versions queued so far stay queued (each chunk is whole); the regrade counts only them.
      if (this.created) await transactWrite([closeRegrade(this.record.regradeId)]).catch(() => undefined);
      throw error;
    }
    if (!this.created) await transactWrite([putRegrade(this.record)]);
    return { ...this.record, queued: this.queued, skipped: this.record.skipped + this.skippedLater };
  }

  private async chunk(chunk: readonly RegradeTarget[]): Promise<void> {
    let pending = chunk;
    let skipped = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const left = await this.attempt(pending, skipped);
      if (left === undefined) return;
      skipped += pending.length - left.length;
      pending = left;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt * 2)));
    }
    throw new Error('Could not queue the regrade: too much contention');
  }

  /** One try of a chunk: nothing once it went through, else the versions still to queue. */
  private async attempt(pending: readonly RegradeTarget[], skipped: number): Promise<readonly RegradeTarget[] | undefined> {
    const plan = planRegradeChunk({ record: this.record, created: this.created }, pending, skipped, { now: Date.now(), shard: anyShard() });
    const transaction = regradeTransaction(plan.items);
    try {
      await transactWrite(transaction.items);
    } catch (error) {
      const failed = failedConditions(error);
      // A burst of submissions contending for the queue's shards: try again after a pause.
      if (failed.length === 0 && !isConflictOnly(error)) throw error;
      const after = afterRegradeCancelled(transaction.reasons(failed));
      return pending.filter((_, index) => !after.skip.has(index));
    }
    this.created = true;
    this.queued += pending.length;
    this.skippedLater += skipped;
    await Promise.all(plan.tickets.map((ticket) => notifyWorkers(ticket)));
    return undefined;
  }
}
