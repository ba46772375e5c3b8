/**
 * A submission's ticket, reserved before its transaction (one UpdateItem on one counter, which it
 * does not read first) and kept until its job is written; released when no job will take it (the
 * submission was refused, answered before, or out of tries), so that positions do not count it.
 */
import { abandonTicket, LANES, QUEUE_SHARDS, reserveTicket, type QueueCounters } from '#shared/data/jobs.ts';
import { logger } from '#shared/logger.ts';
import type { QueueShare } from './shares.ts';
import { anyShard, drawTicket, shardOf } from './tickets.ts';

/** Tickets drawn at most for one reservation: each is refused only when its counter took the same one in the same millisecond. */
const MAX_DRAWS = 20;

/**
 * Reserves a ticket in the lane of a submission's share of the queue, drawn now. `counted`: the
 * submission counts towards its course's first-lane submissions this minute (a student's own first
 * reservation): its ticket goes on one of the course's counters of the minute as read (`counters`,
 * courseShards), whose write counts it; any other ticket goes on any counter at random, so that a
 * rush spreads over all of them. Never on the superseded ticket's counter, which the submission's
 * transaction updates (giving that ticket up), while another will do.
 */
export async function reserveForShare(
  share: QueueShare,
  counted: { term: string; course: string; now: Date; counters: QueueCounters } | undefined,
  random: () => number = Math.random,
): Promise<number> {
  const superseded = share.supersede && shardOf(share.supersede.ticket);
  const counting = counted && share.lane === LANES.first ? counted : undefined;
  const candidates = counting?.counters.filter((counter) => counter.shard !== superseded) ?? [];
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const counter = candidates[Math.floor(random() * candidates.length)];
    const drawn = anyShard(random);
    const shard = counter?.shard ?? (drawn === superseded ? (drawn + 1) % QUEUE_SHARDS : drawn);
    const ticket = drawTicket(share.lane, shard, Date.now(), random);
    const burst = counting && { term: counting.term, course: counting.course, now: counting.now, ...(counter ? { counter } : {}) };
    if (await reserveTicket(shard, ticket, burst)) return ticket;
  }
  throw new Error('Could not reserve a ticket: every one drawn was taken');
}

/** Gives up a reserved ticket no job will take. */
export async function releaseReserved(ticket: number): Promise<void> {
  try {
    await abandonTicket(shardOf(ticket), ticket);
  } catch (error) {
    // The submission's own answer stands; the ticket counts as queued until a worker passes it.
    logger.warn({ message: 'Could not give up a reserved ticket', ticket, error });
  }
}
