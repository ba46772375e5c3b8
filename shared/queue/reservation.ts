/**
 * A submission's ticket, reserved before its transaction (an atomic counter, never refused) and
 * kept until its job is written; released when no job will take it (the submission was refused,
 * answered before, or out of tries), so that positions do not count it.
 */
import { abandonTicket, reserveTicket, type QueueCounters } from '#shared/data/jobs.ts';
import { logger } from '#shared/logger.ts';
import { ticketContention } from './contention.ts';
import { laneCounters } from './lanes.ts';
import type { QueueShare } from './shares.ts';
import { sequenceOf, shardForReservation, shardOf, laneOf, ticketOf, ticketToIssue } from './tickets.ts';

const contention = ticketContention();

/** Submissions of this instance between their read of the queue and their ticket's reservation. */
let reserving = 0;

/**
 * Reserves a ticket in the lane whose counters are `counters`: the lowest free ticket's counter,
 * so that tickets follow arrival order; while submissions arrive together (others of this instance
 * are reserving, or lately a reservation found that others had reserved on its counter since it
 * was read: contention.ts), one of the counters that issued the fewest, at random, so that they
 * spread over the shards rather than pile on one. `burst`: counts the course's submission this
 * minute with it (courseBurst).
 */
export async function reserveInLane(
  counters: QueueCounters,
  lane: number,
  burst: { term: string; course: string; now: Date } | undefined,
): Promise<number> {
  const together = reserving > 0 || contention.recent();
  const shard = together ? shardForReservation(counters) : ticketToIssue(counters).shard.shard;
  const counter = counters.find((candidate) => candidate.shard === shard);
  reserving++;
  try {
    const sequence = await reserveTicket(shard, lane, burst && { ...burst, ...(counter ? { counter } : {}) });
    if (sequence !== (counter?.tail ?? 0) + 1) contention.noteCollision();
    return ticketOf(shard, sequence, lane);
  } finally {
    reserving--;
  }
}

/**
 * Reserves a ticket in the lane of a submission's share of the queue, on that lane's counters as
 * read; not on the superseded ticket's counter, which the submission's transaction updates (giving
 * that ticket up).
 */
export function reserveForShare(
  share: QueueShare,
  queue: QueueCounters,
  burst: { term: string; course: string; now: Date } | undefined,
): Promise<number> {
  const superseded = share.supersede?.ticket;
  const counters = laneCounters(queue, share.lane).filter(
    (counter) => superseded === undefined || laneOf(superseded) !== share.lane || shardOf(superseded) !== counter.shard,
  );
  return reserveInLane(counters, share.lane, burst);
}

/** Gives up a reserved ticket no job will take. */
export async function releaseReserved(ticket: number): Promise<void> {
  try {
    await abandonTicket(shardOf(ticket), sequenceOf(ticket), laneOf(ticket));
  } catch (error) {
    // The submission's own answer stands; the ticket counts as queued until a worker passes it.
    logger.warn({ message: 'Could not give up a reserved ticket', ticket, error });
  }
}
