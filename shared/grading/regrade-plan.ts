/**
 * A regrade's chunk: the items of its one transaction, each named for what it is (each version's
 * job on its new ticket, the version queued again, the queue counter taking the tickets, the
 * regrade's counts), and what a failed condition of that transaction means. Pure.
 */
import { LANES, putJob, takeTickets } from '#shared/data/jobs.ts';
import { addRegradeCounts, putRegrade, type RegradeRecord } from '#shared/data/regrades.ts';
import { gradeableKey, requeueVersion } from '#shared/data/submissions.ts';
import { namedTransaction, type NamedReason, type TransactItem } from '#shared/data/transactions.ts';
import { chunkTickets } from '#shared/queue/tickets.ts';

/** One version to queue again. */
export interface RegradeTarget {
  readonly ownerId: string;
  readonly version: number;
  /** The commit its first grading checked out, which its job grades again (none: not recorded). */
  readonly commit?: string;
  /** The address of the repository it was submitted from, which its job checks out from (none: not recorded). */
  readonly repository?: string;
}

/** A chunk's transaction items by name. */
export interface RegradeItems {
  /** Each version's job on its new ticket: fails when the ticket has a job already. */
  readonly jobs: readonly TransactItem[];
  /** Each version queued again, in the chunk's order: fails when it was queued meanwhile. */
  readonly versions: readonly TransactItem[];
  /** The counter whose set takes the chunk's tickets, provided it holds none of them already. */
  readonly counters: readonly TransactItem[];
  /** The regrade: created by its first chunk, its counts added by each later one. */
  readonly progress: TransactItem;
}

export type RegradeItemName = keyof RegradeItems;

export interface RegradeChunkPlan {
  readonly items: RegradeItems;
  /** The tickets issued, one per version of the chunk (whose workers are woken once it went through). */
  readonly tickets: readonly number[];
}

/**
 * The chunk's versions `pending` on tickets of the regrade lane drawn at `at.now`, in a row on
 * counter `at.shard` (chunkTickets), so in the chunk's order and after every ticket drawn before;
 * `skipped`: the chunk's versions found queued meanwhile, which the regrade counts as skipped;
 * `created`: whether an earlier chunk created the regrade item.
 */
export function planRegradeChunk(
  regrade: { readonly record: RegradeRecord; readonly created: boolean },
  pending: readonly RegradeTarget[],
  skipped: number,
  at: { readonly now: number; readonly shard: number },
): RegradeChunkPlan {
  const { record, created } = regrade;
  const owner = { term: record.term, course: record.course, gradeableId: record.gradeableId };
  const key = gradeableKey(owner.term, owner.course, owner.gradeableId);
  const issued = chunkTickets(LANES.regrade, at.shard, at.now, pending.length).map((ticket, index) => ({
    target: pending[index] as RegradeTarget,
    ticket,
  }));
  const tickets = issued.map(({ ticket }) => ticket);
  const counts = { queued: pending.length, skipped };
  const items: RegradeItems = {
    // The job grades the version's own commit, never what was pushed since (worker/prepare.ts).
    jobs: issued.map(({ target, ticket }) => putJob({ ticket, gradeableKey: key, ...owner, ...target, regradeId: record.regradeId })),
    versions: issued.map(({ target, ticket }) => requeueVersion({ gradeableKey: key, ownerId: target.ownerId }, target.version, ticket)),
    counters: tickets.length > 0 ? [takeTickets(at.shard, tickets)] : [],
    progress: created
      ? addRegradeCounts(record.regradeId, counts)
      : putRegrade({ ...record, queued: counts.queued, skipped: record.skipped + counts.skipped }),
  };
  return { items, tickets };
}

const ORDER: readonly RegradeItemName[] = ['jobs', 'versions', 'counters', 'progress'];

/** The chunk's items as one transaction, and the names of the items a cancellation's reasons point at. */
export const regradeTransaction = (items: RegradeItems) => namedTransaction(ORDER, items);

export type RegradeNextStep =
  /** A ticket drawn was taken meanwhile (its counter holds it, or it has a job): draw the chunk's tickets again. */
  | 'draw the tickets again'
  /** The version was queued meanwhile (by a submission's claim or another regrade): skipped. */
  | 'skip the version'
  /** Try the same chunk again (after a short pause). */
  | 'retry';

export const AFTER_REGRADE_CANCELLED: Readonly<Record<RegradeItemName, readonly RegradeNextStep[]>> = {
  // A ticket with a job already was drawn by another in the same millisecond.
  jobs: ['draw the tickets again'],
  versions: ['skip the version'],
  counters: ['draw the tickets again'],
  progress: ['retry'],
};

/**
 * What a cancelled chunk does next, given the items whose condition failed (none: only conflicts
 * with other transactions): whether to draw its tickets again, and which of the chunk's versions
 * (by their place in it) to skip. Every try draws its tickets anew (the clock has moved on), so
 * this says only why.
 */
export function afterRegradeCancelled(reasons: readonly NamedReason<RegradeItemName>[]): {
  readonly drawAgain: boolean;
  readonly skip: ReadonlySet<number>;
} {
  const steps = (reason: NamedReason<RegradeItemName>) => AFTER_REGRADE_CANCELLED[reason.name];
  return {
    drawAgain: reasons.some((reason) => steps(reason).includes('draw the tickets again')),
    skip: new Set(reasons.filter((reason) => steps(reason).includes('skip the version')).map((reason) => reason.index)),
  };
}
