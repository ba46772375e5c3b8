import { QUEUE_SHARDS, type QueueCounters, type QueueShard } from '#shared/data/jobs.ts';

/**
 * The order of the grading queue over its shards (shared/data/jobs.ts). A ticket is a shard's
 * sequence number and the shard, `sequence × QUEUE_SHARDS + shard`, and the queue is served in
 * ticket order. Each shard issues its sequence numbers in order, so the free ticket of a shard is
 * the one after its `tail`, and new tickets are the lowest free ones: one after another, the
 * tickets of a quiet queue are 1 × 16 + 0, 1 × 16 + 1, …, 2 × 16 + 0, … in arrival order, each on
 * a different item. A submission reserves its ticket on the lowest free ticket's counter (an atomic
 * counter: submissions never collide on a ticket); submissions arriving together spread over the
 * counters that issued the fewest (shardForReservation), so tickets issued in one rush may be out
 * of arrival order by less than one round of shards. Positions are exact: a job's place is the number of queued
 * tickets below its own (less those reserved and given up), plus one, and every claim takes the
 * lowest queued ticket.
 *
 * The queue has lanes (LANES in shared/data/jobs.ts), each sharded as above: a lane's tickets all
 * lie above the lanes before it (`lane × LANE_SPAN` added), so "the lowest queued ticket" serves
 * a lane only once the lanes before it are empty, and a place counts every job queued in the lanes
 * before its own. A student's submission goes into the first lane unless the student already has
 * a job queued or being graded: a burst by one student waits behind everyone else's first job. A
 * course past COURSE_BURST_PER_MINUTE submissions in the current minute has its students' first
 * jobs in the second lane, behind other courses' first jobs and ahead of anyone's further jobs.
 */
export const ticketOf = (shard: number, sequence: number, lane = 0): number => lane * LANE_SPAN + sequence * QUEUE_SHARDS + shard;

/** The tickets of one lane: 2^44 of them (a million a second for half a year), so every ticket stays a safe integer. */
export const LANE_SPAN = 2 ** 44;

export const laneOf = (ticket: number): number => Math.floor(ticket / LANE_SPAN);
export const shardOf = (ticket: number): number => ticket % QUEUE_SHARDS;
export const sequenceOf = (ticket: number): number => Math.floor((ticket % LANE_SPAN) / QUEUE_SHARDS);

/** The 1-based place of a queued ticket: the queued tickets below it, less those given up, plus one. */
export function queuePosition(ticket: number, counters: QueueCounters): number {
  const lane = laneOf(ticket);
  const shard = shardOf(ticket);
  const sequence = sequenceOf(ticket);
  let ahead = 0;
  for (const other of counters) {
    const otherLane = other.lane ?? 0;
    if (otherLane > lane) continue;
    // The other shard's tickets below ours: all of a lane before ours; in ours, those of sequences up
    // to ours on a lower shard, below ours on a higher one.
    const last = otherLane < lane ? other.tail : Math.min(other.tail, other.shard < shard ? sequence : sequence - 1);
    const abandoned = (other.abandoned ?? []).filter((given) => given > other.head && given <= last).length;
    ahead += Math.max(0, last - other.head - abandoned);
  }
  return ahead + 1;
}

/** The lowest queued ticket and its shard, if any job is queued. */
export function nextToClaim(counters: QueueCounters): { shard: QueueShard; ticket: number } | undefined {
  let next: { shard: QueueShard; ticket: number } | undefined;
  for (const shard of counters) {
    if (shard.head >= shard.tail) continue;
    const ticket = ticketOf(shard.shard, shard.head + 1, shard.lane);
    if (!next || ticket < next.ticket) next = { shard, ticket };
  }
  return next;
}

/**
 * The lowest free ticket and its shard; with `spread` above 1 (a submission trying again after a
 * collision), one of the `spread` lowest free tickets at random.
 */
export function ticketToIssue(
  counters: QueueCounters,
  spread = 1,
  random: () => number = Math.random,
): { shard: QueueShard; ticket: number } {
  const lowest = freeTickets(counters).slice(0, Math.max(1, spread));
  const chosen = lowest[Math.floor(random() * lowest.length)] ?? lowest[0];
  if (!chosen) throw new Error('The grading queue has no shards');
  return chosen;
}

/** Tickets to issue on one shard: the sequence numbers after `shard.tail`. */
export interface TicketRun {
  readonly shard: QueueShard;
  readonly tickets: readonly number[];
}

/**
 * The lowest free tickets for `targets` (a regrade's chunk), lowest first and paired with the targets
 * in their order, and the same tickets by shard (each shard's counter moves on by its run's length).
 */
export function ticketsToIssue<T>(
  counters: QueueCounters,
  targets: readonly T[],
): { issued: { target: T; ticket: number }[]; runs: TicketRun[] } {
  let current = counters;
  const runs = new Map<number, TicketRun>();
  const issued = targets.map((target) => {
    const { shard, ticket } = ticketToIssue(current);
    const run = runs.get(shard.shard);
    runs.set(shard.shard, { shard: run?.shard ?? shard, tickets: [...(run?.tickets ?? []), ticket] });
    current = current.map((other) => (other === shard ? { ...other, tail: other.tail + 1 } : other));
    return { target, ticket };
  });
  return { issued, runs: [...runs.values()] };
}

/** Each shard's free ticket, lowest first. */
const freeTickets = (counters: QueueCounters) =>
  counters.map((shard) => ({ shard, ticket: ticketOf(shard.shard, shard.tail + 1, shard.lane) })).sort((a, b) => a.ticket - b.ticket);

/** The shard to reserve a ticket on: any of those that issued the fewest, or one more, at random. */
export function shardForReservation(counters: QueueCounters, random: () => number = Math.random): number {
  const fewest = Math.min(...counters.map((shard) => shard.tail));
  const candidates = counters.filter((shard) => shard.tail <= fewest + 1);
  return (candidates[Math.floor(random() * candidates.length)] ?? candidates[0])?.shard ?? 0;
}
