import { createHash } from 'node:crypto';
import { QUEUE_SHARDS, type QueueCounters, type QueueShard } from '#shared/data/jobs.ts';

/**
 * The order of the grading queue (shared/data/jobs.ts). A ticket is a number made of, from the
 * highest bits down: its lane, the millisecond it was drawn (since TICKET_EPOCH), the counter whose
 * set holds it and a few random bits,
 *
 *   ticket = lane × LANE_SPAN + ms × 2^10 + shard × 2^6 + salt   (salt < 64),
 *
 * and the queue is served in ticket order: lane by lane, and within a lane by arrival time, on
 * whichever counter each ticket was reserved. A submission draws its ticket from the clock and adds
 * it to one counter's set without reading the queue (a counter of its course this minute while it
 * counts towards the course's burst, else any at random), so a quiet queue is served in arrival
 * order and submissions arriving together order by the millisecond each drew its ticket in (clocks
 * of different function instances may differ by a few milliseconds). Positions are exact: a job's
 * place is the number of queued tickets below its own, over every counter's set, plus one, and
 * every claim takes the lowest queued ticket.
 *
 * The lanes (LANES in shared/data/jobs.ts): a lane's tickets all lie above the lanes before it, so
 * "the lowest queued ticket" serves a lane only once the lanes before it are empty, and a place
 * counts every job queued in the lanes before its own. A student's submission goes into the first
 * lane unless the student already has a job queued or being graded: a burst by one student waits
 * behind everyone else's first job. A course past COURSE_BURST_PER_MINUTE first-lane submissions in
 * the current minute has its students' further first jobs in the second lane, behind other
 * courses' first jobs and ahead of anyone's further jobs.
 */
export const ticketOf = (parts: { lane: number; at: number; shard: number; salt: number }): number =>
  parts.lane * LANE_SPAN + (parts.at - TICKET_EPOCH) * 2 ** 10 + parts.shard * 2 ** 6 + parts.salt;

/** The tickets of one lane: 2^50 of them, 2^40 milliseconds (34 years from TICKET_EPOCH), so every ticket of the four lanes is a safe integer. */
export const LANE_SPAN = 2 ** 50;

/** The first millisecond a ticket can be drawn in (2025-01-01T00:00:00Z). */
export const TICKET_EPOCH = Date.UTC(2025, 0, 1);

/** Tickets one counter can take in one millisecond: the salt's range. */
export const TICKETS_PER_MS = 2 ** 6;

export const laneOf = (ticket: number): number => Math.floor(ticket / LANE_SPAN);
/** The counter whose set holds the ticket. */
export const shardOf = (ticket: number): number => Math.floor(ticket / 2 ** 6) % QUEUE_SHARDS;
/** When the ticket was drawn, in ms since 1970. */
export const drawnAt = (ticket: number): number => Math.floor((ticket % LANE_SPAN) / 2 ** 10) + TICKET_EPOCH;

/** A new ticket in `lane` on counter `shard`, drawn at `now`. */
export const drawTicket = (lane: number, shard: number, now: number, random: () => number = Math.random): number =>
  ticketOf({ lane, at: now, shard, salt: Math.floor(random() * TICKETS_PER_MS) });

/** The 1-based place of a queued ticket: the queued tickets below it, over every counter, plus one. */
export function queuePosition(ticket: number, counters: QueueCounters): number {
  let ahead = 0;
  for (const counter of counters) ahead += countBelow(counter.queued, ticket);
  return ahead + 1;
}

/** How many of `sorted` (ascending) lie below `ticket`. */
function countBelow(sorted: readonly number[], ticket: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] ?? Infinity) < ticket) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The lowest queued ticket and its counter, if any job is queued. */
export function nextToClaim(counters: QueueCounters): { shard: QueueShard; ticket: number } | undefined {
  let next: { shard: QueueShard; ticket: number } | undefined;
  for (const shard of counters) {
    const ticket = shard.queued[0];
    if (ticket !== undefined && (!next || ticket < next.ticket)) next = { shard, ticket };
  }
  return next;
}

/**
 * A regrade chunk's tickets, `count` (at most TICKETS_PER_MS) in a row on one counter in the
 * millisecond `now`, in the chunk's order.
 */
export function chunkTickets(lane: number, shard: number, now: number, count: number): number[] {
  if (count > TICKETS_PER_MS) throw new Error(`A chunk of ${count} tickets does not fit in one millisecond of one counter`);
  return Array.from({ length: count }, (_, salt) => ticketOf({ lane, at: now, shard, salt }));
}

/** How many counters hold a course's count of one minute (COURSE_BURST_PER_MINUTE). */
export const COURSE_SHARDS = 2;

/**
 * The counters that count a course's first-lane submissions in the minute of `now`: two of the
 * sixteen, picked by a hash of the course and the minute, so that one course's counts are exact
 * from two items read with the submission, and each minute moves them to other counters.
 */
export function courseShards(term: string, course: string, now: Date): number[] {
  const minute = Math.floor(now.getTime() / 60_000);
  const first = createHash('sha256').update(`${term}/${course}#${minute}`).digest().readUInt32BE(0) % QUEUE_SHARDS;
  return [first, (first + QUEUE_SHARDS / 2) % QUEUE_SHARDS];
}

/** A counter at random: where a submission not counted towards its course's burst reserves. */
export const anyShard = (random: () => number = Math.random): number => Math.floor(random() * QUEUE_SHARDS);
