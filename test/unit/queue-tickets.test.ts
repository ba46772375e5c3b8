import { describe, expect, it } from 'vitest';
import { burstAttribute, courseBurst, LANES, QUEUE_LANES, QUEUE_SHARDS, type QueueCounters, type QueueShard } from '#shared/data/jobs.ts';
import { laneFor } from '#shared/queue/lanes.ts';
import {
  chunkTickets,
  courseShards,
  drawnAt,
  drawTicket,
  laneOf,
  LANE_SPAN,
  nextToClaim,
  queuePosition,
  shardOf,
  TICKET_EPOCH,
  ticketOf,
  TICKETS_PER_MS,
} from '#shared/queue/tickets.ts';

// The grading queue's order over its counters: what `queue_position` reports and what workers claim.

const emptyQueue = (): QueueShard[] => Array.from({ length: QUEUE_SHARDS }, (_, shard) => ({ shard, queued: [] }));

/** A seeded generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** The queue with `ticket` added to its counter's set (false: the set holds it already, as reserveTicket refuses it). */
function add(counters: QueueCounters, ticket: number): QueueCounters | undefined {
  const shard = shardOf(ticket);
  if (counters[shard]!.queued.includes(ticket)) return undefined;
  return counters.map((counter) =>
    counter.shard === shard ? { ...counter, queued: [...counter.queued, ticket].sort((a, b) => a - b) } : counter,
  );
}

const remove = (counters: QueueCounters, ticket: number): QueueCounters =>
  counters.map((counter) =>
    counter.shard === shardOf(ticket) ? { ...counter, queued: counter.queued.filter((t) => t !== ticket) } : counter,
  );

const at = Date.UTC(2026, 10, 29, 6, 0, 0);

describe('the grading queue’s tickets', () => {
  it('orders tickets by the millisecond they were drawn, on whatever counter, and reads lane, counter and time back', () => {
    expect(ticketOf({ lane: 0, at, shard: QUEUE_SHARDS - 1, salt: TICKETS_PER_MS - 1 })).toBeLessThan(
      ticketOf({ lane: 0, at: at + 1, shard: 0, salt: 0 }),
    );
    const ticket = ticketOf({ lane: LANES.more, at, shard: 7, salt: 33 });
    expect([laneOf(ticket), shardOf(ticket), drawnAt(ticket)]).toEqual([LANES.more, 7, at]);
    // Every lane's tickets lie above the lanes before it for 34 years from the epoch, and stay safe integers.
    const last = TICKET_EPOCH + 2 ** 40 - 1;
    expect(ticketOf({ lane: LANES.first, at: last, shard: 15, salt: 63 })).toBeLessThan(
      ticketOf({ lane: LANES.rush, at: TICKET_EPOCH, shard: 0, salt: 0 }),
    );
    expect(Number.isSafeInteger(ticketOf({ lane: LANES.regrade, at: last, shard: 15, salt: 63 }))).toBe(true);
    expect(ticketOf({ lane: 1, at: TICKET_EPOCH, shard: 0, salt: 0 })).toBe(LANE_SPAN);
  });

  it('draws a quiet queue’s tickets in arrival order whichever counter each goes on', () => {
    const random = seeded(5);
    const drawn = Array.from({ length: 200 }, (_, index) =>
      drawTicket(LANES.first, Math.floor(random() * QUEUE_SHARDS), at + index * 3, random),
    );
    expect(drawn).toEqual([...drawn].sort((a, b) => a - b));
    expect(new Set(drawn.map(shardOf)).size).toBe(QUEUE_SHARDS);
  });

  it('gives a regrade chunk tickets in a row on one counter, in the chunk’s order, after every ticket drawn before', () => {
    const before = drawTicket(LANES.regrade, 15, at - 1, () => 0.999);
    const tickets = chunkTickets(LANES.regrade, 4, at, 41);
    expect(tickets).toEqual([...tickets].sort((a, b) => a - b));
    expect(new Set(tickets).size).toBe(41);
    expect(tickets.every((ticket) => shardOf(ticket) === 4 && laneOf(ticket) === LANES.regrade && ticket > before)).toBe(true);
    expect(() => chunkTickets(LANES.regrade, 4, at, TICKETS_PER_MS + 1)).toThrow();
  });

  it('claims nothing from an empty queue, else the lowest queued ticket over every counter', () => {
    expect(nextToClaim(emptyQueue())).toBeUndefined();
    const low = ticketOf({ lane: 0, at, shard: 9, salt: 0 });
    const queue = add(add(emptyQueue(), ticketOf({ lane: 0, at: at + 5, shard: 2, salt: 1 }))!, low)!;
    expect(nextToClaim(queue)).toEqual({ shard: queue[9], ticket: low });
  });

  it('reports each queued job’s exact place, and claims in that order, through any interleaving of submissions at once, tickets given up, supersessions, regrade chunks and claims', () => {
    const random = seeded(17);
    let counters: QueueCounters = emptyQueue();
    let clock = at;
    const queued = new Set<number>();
    const claimed: number[] = [];
    const wrong: { step: number; ticket: number; rank: number; position: number }[] = [];
    for (let step = 0; step < 2_500; step++) {
      // Several steps may share a millisecond: submissions arriving together.
      if (random() < 0.4) clock += 1;
      const roll = random();
      if (roll < 0.4) {
        // A submission reserving on a counter at random (a collision in the same millisecond draws again).
        const lane = Math.floor(random() * (QUEUE_LANES - 1));
        for (;;) {
          const ticket = drawTicket(lane, Math.floor(random() * QUEUE_SHARDS), clock, random);
          const after = add(counters, ticket);
          if (!after) continue;
          counters = after;
          queued.add(ticket);
          break;
        }
      } else if (roll < 0.45) {
        // A regrade's chunk on one counter (refused whole when the counter holds one of its tickets).
        let after: QueueCounters | undefined = counters;
        const tickets = chunkTickets(LANES.regrade, Math.floor(random() * QUEUE_SHARDS), clock, 1 + Math.floor(random() * 41));
        for (const ticket of tickets) after = after && add(after, ticket);
        if (after) {
          counters = after;
          tickets.forEach((ticket) => queued.add(ticket));
        }
      } else if (roll < 0.6 && queued.size > 0) {
        // A ticket given up (its submission refused) or superseded (a newer version replaced its job).
        const tickets = [...queued];
        const ticket = tickets[Math.floor(random() * tickets.length)]!;
        queued.delete(ticket);
        counters = remove(counters, ticket);
      } else {
        const next = nextToClaim(counters);
        if (!next) continue;
        claimed.push(next.ticket);
        queued.delete(next.ticket);
        counters = remove(counters, next.ticket);
      }
      const order = [...queued].sort((a, b) => a - b);
      order.forEach((ticket, rank) => {
        const position = queuePosition(ticket, counters);
        if (position !== rank + 1) wrong.push({ step, ticket, rank: rank + 1, position });
      });
      const next = nextToClaim(counters);
      if (next && next.ticket !== order[0]) wrong.push({ step, ticket: next.ticket, rank: 1, position: -1 });
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(claimed.length).toBeGreaterThan(500);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(new Set(claimed.map(laneOf)).size).toBe(QUEUE_LANES);
  });

  it('counts only the queued tickets below a job, in the lanes before its own and in its own', () => {
    const first = ticketOf({ lane: LANES.first, at: at + 100, shard: 9, salt: 0 });
    const more = [1, 2].map((offset) => ticketOf({ lane: LANES.more, at: at + offset, shard: 3, salt: 0 }));
    const regrade = ticketOf({ lane: LANES.regrade, at, shard: 0, salt: 0 });
    let queue: QueueCounters | undefined = emptyQueue();
    for (const ticket of [regrade, ...more]) queue = queue && add(queue, ticket);
    expect(nextToClaim(queue!)?.ticket).toBe(more[0]);
    // A first job arriving after them goes ahead of both: position 1; the others move back one place.
    const withFirst = add(queue!, first)!;
    expect(nextToClaim(withFirst)?.ticket).toBe(first);
    expect(queuePosition(first, withFirst)).toBe(1);
    expect(queuePosition(more[1]!, withFirst)).toBe(3);
    expect(queuePosition(regrade, withFirst)).toBe(4);
    // A ticket given up ahead no longer counts.
    expect(queuePosition(regrade, remove(withFirst, more[0]!))).toBe(3);
  });
});

describe('a course’s count this minute', () => {
  it('lives on two different counters of the sixteen, the same for the whole minute, and moves with the minute', () => {
    const minute = new Date(at);
    const pair = courseShards('f26', 'cs1', minute);
    expect(pair).toHaveLength(2);
    expect(new Set(pair).size).toBe(2);
    expect(pair.every((shard) => shard >= 0 && shard < QUEUE_SHARDS)).toBe(true);
    expect(courseShards('f26', 'cs1', new Date(at + 59_999))).toEqual(pair);
    const minutes = new Set(Array.from({ length: 60 }, (_, index) => courseShards('f26', 'cs1', new Date(at + index * 60_000)).join()));
    expect(minutes.size).toBeGreaterThan(4);
  });

  it('is the sum of the course’s counts on the counters read, this minute’s only', () => {
    const now = new Date(at);
    const counters: QueueCounters = [
      { shard: 1, queued: [], bursts: { [burstAttribute('f26', 'cs1', now)]: 3, [burstAttribute('f26', 'cs2', now)]: 9 } },
      {
        shard: 9,
        queued: [],
        bursts: { [burstAttribute('f26', 'cs1', now)]: 2, [burstAttribute('f26', 'cs1', new Date(at - 60_000))]: 50 },
      },
    ];
    expect(courseBurst(counters, 'f26', 'cs1', now)).toBe(5);
  });
});

describe('the queue’s lanes', () => {
  it('puts a student’s first job in the first lane, a job beside others in the next, regrades last', () => {
    expect(laneFor({ othersInFlight: 0 })).toBe(LANES.first);
    expect(laneFor({ othersInFlight: 1 })).toBe(LANES.more);
    expect(laneFor({ othersInFlight: 4 })).toBe(LANES.more);
    expect(laneFor({ regrade: true, othersInFlight: 0 })).toBe(LANES.regrade);
  });

  it('puts a course’s first jobs beyond its burst limit this minute in their own lane, before further jobs; regrades stay last', () => {
    expect([LANES.first, LANES.rush, LANES.more, LANES.regrade]).toEqual([0, 1, 2, 3]);
    expect(laneFor({ othersInFlight: 0, courseBurst: 60, burstLimit: 60 })).toBe(LANES.first);
    expect(laneFor({ othersInFlight: 0, courseBurst: 61, burstLimit: 60 })).toBe(LANES.rush);
    expect(laneFor({ othersInFlight: 2, courseBurst: 1, burstLimit: 60 })).toBe(LANES.more);
    expect(laneFor({ regrade: true, othersInFlight: 0, courseBurst: 500, burstLimit: 60 })).toBe(LANES.regrade);
    // Not counted (staff's submission, or the count failed): the student's own lane.
    expect(laneFor({ othersInFlight: 0, burstLimit: 60 })).toBe(LANES.first);
  });
});
