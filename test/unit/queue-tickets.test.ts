import { describe, expect, it } from 'vitest';
import { LANES, QUEUE_LANES, QUEUE_SHARDS, type QueueCounters, type QueueShard } from '#shared/data/jobs.ts';
import { laneCounters, laneFor } from '#shared/queue/lanes.ts';
import { laneOf, nextToClaim, queuePosition, sequenceOf, shardOf, ticketOf, ticketsToIssue, ticketToIssue } from '#shared/queue/tickets.ts';

// The grading queue's order over its shards: what `queue_position` reports and what workers claim.

const emptyQueue = (): QueueShard[] => Array.from({ length: QUEUE_SHARDS }, (_, shard) => ({ shard, head: 0, tail: 0 }));

/** A seeded generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('the sharded grading queue', () => {
  it('serves every shard’s first ticket before any shard’s second', () => {
    expect(ticketOf(QUEUE_SHARDS - 1, 1)).toBeLessThan(ticketOf(0, 2));
    expect(ticketOf(0, 1)).toBeLessThan(ticketOf(1, 1));
  });

  it('issues the lowest free ticket, so a quiet queue is served in arrival order', () => {
    let counters: QueueCounters = emptyQueue();
    const issued: number[] = [];
    for (let index = 0; index < 3 * QUEUE_SHARDS + 5; index++) {
      const { shard, ticket } = ticketToIssue(counters);
      issued.push(ticket);
      counters = counters.map((other) => (other.shard === shard.shard ? { ...other, tail: other.tail + 1 } : other));
    }
    expect(issued).toEqual([...issued].sort((a, b) => a - b));
    expect(new Set(issued.map((ticket) => ticket % QUEUE_SHARDS)).size).toBe(QUEUE_SHARDS);
  });

  it('after a collision, spreads a submission over the lowest free tickets of the shards', () => {
    const queue = emptyQueue().map((shard) => ({ ...shard, tail: shard.shard < 4 ? 3 : 2 }));
    const chosen = new Set([0, 0.2, 0.4, 0.6, 0.8, 0.999].map((value) => ticketToIssue(queue, 4, () => value).ticket));
    expect([...chosen].sort((a, b) => a - b)).toEqual([ticketOf(4, 3), ticketOf(5, 3), ticketOf(6, 3), ticketOf(7, 3)]);
  });

  it('gives a regrade chunk the lowest free tickets, contiguous with what was issued before', () => {
    const queue = emptyQueue().map((shard) => ({ ...shard, tail: shard.shard < 5 ? 2 : 1 }));
    const targets = Array.from({ length: 20 }, (_, index) => `version ${index}`);
    const { issued, runs } = ticketsToIssue(queue, targets);
    // Lowest first, in the targets' order, and the same tickets as the shards' runs.
    expect(issued).toEqual(targets.map((target, index) => ({ target, ticket: ticketOf(5, 2) + index })));
    expect(runs.flatMap((run) => run.tickets).sort((a, b) => a - b)).toEqual(issued.map(({ ticket }) => ticket));
    for (const run of runs)
      expect(run.tickets).toEqual(run.tickets.map((_, index) => ticketOf(run.shard.shard, run.shard.tail + 1 + index)));
  });

  it('claims nothing from an empty queue, else the lowest queued ticket', () => {
    expect(nextToClaim(emptyQueue())).toBeUndefined();
    const queue = emptyQueue().map((shard) =>
      shard.shard === 2 ? { ...shard, head: 1, tail: 3 } : shard.shard === 9 ? { ...shard, tail: 1 } : shard,
    );
    expect(nextToClaim(queue)).toEqual({ shard: queue[9], ticket: ticketOf(9, 1) });
  });

  it('reports each queued job’s exact place, through any interleaving of submissions, tickets given up and claims', () => {
    const random = seeded(17);
    let counters: QueueCounters = emptyQueue();
    const queued: number[] = [];
    const claimed: number[] = [];
    const wrong: { step: number; ticket: number; rank: number }[] = [];
    for (let step = 0; step < 3_000; step++) {
      if (random() < 0.1) {
        // A submission that reserved a ticket and was refused: it gives the ticket up (abandonTicket).
        const shard = counters[Math.floor(random() * QUEUE_SHARDS)]!;
        const sequence = shard.tail + 1;
        counters = counters.map((other) =>
          other === shard ? { ...other, tail: sequence, abandoned: [...(other.abandoned ?? []), sequence] } : other,
        );
      } else if (random() < 0.55) {
        // A submission, first try or after a collision, or one time in ten a regrade's chunk.
        const runs = random() < 0.1 ? ticketsToIssue(counters, Array.from({ length: 1 + Math.floor(random() * 20) })).runs : [];
        if (runs.length === 0) {
          const { shard, ticket } = ticketToIssue(counters, random() < 0.5 ? 1 : QUEUE_SHARDS, random);
          runs.push({ shard, tickets: [ticket] });
        }
        for (const run of runs) {
          queued.push(...run.tickets);
          counters = counters.map((other) =>
            other.shard === run.shard.shard ? { ...other, tail: other.tail + run.tickets.length } : other,
          );
        }
      } else {
        const next = nextToClaim(counters);
        if (!next) continue;
        const passed = next.shard.head + 1;
        // A ticket given up is passed (and forgotten) like any ticket without a job; a job's is claimed.
        if (!next.shard.abandoned?.includes(passed)) {
          claimed.push(next.ticket);
          queued.splice(queued.indexOf(next.ticket), 1);
        }
        counters = counters.map((other) =>
          other.shard === next.shard.shard
            ? { ...other, head: passed, abandoned: (other.abandoned ?? []).filter((given) => given !== passed) }
            : other,
        );
      }
      const order = [...queued].sort((a, b) => a - b);
      order.forEach((ticket, rank) => {
        if (queuePosition(ticket, counters) !== rank + 1) wrong.push({ step, ticket, rank: rank + 1 });
      });
    }
    expect(wrong).toEqual([]);
    expect(claimed.length).toBeGreaterThan(900);
    // Claims follow ticket order except where a newer, lower ticket arrived after a higher one was queued.
    expect(new Set(claimed).size).toBe(claimed.length);
  });

  it('does not count a ticket given up ahead of a job, nor one given up below the head or behind the job', () => {
    const queue = emptyQueue().map((shard) =>
      shard.shard === 3 ? { ...shard, head: 1, tail: 5, abandoned: [1, 2, 4, 9] } : { ...shard, tail: 5 },
    );
    const without = queue.map((shard) => ({ ...shard, abandoned: [] }));
    // Ahead of ticket (shard 3, sequence 5): sequences 1–5 of shards 0–2, 2–4 of shard 3 (less 2 and 4), 1–4 of shards 4–15.
    expect(queuePosition(ticketOf(3, 5), without)).toBe(3 * 5 + 3 + 12 * 4 + 1);
    expect(queuePosition(ticketOf(3, 5), queue)).toBe(3 * 5 + 1 + 12 * 4 + 1);
  });
});

const allLanes = (): QueueShard[] =>
  Array.from({ length: QUEUE_LANES * QUEUE_SHARDS }, (_, index) => ({
    lane: Math.floor(index / QUEUE_SHARDS),
    shard: index % QUEUE_SHARDS,
    head: 0,
    tail: 0,
  }));

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

  it('numbers every lane’s tickets above the lanes before it, and reads lane, shard and sequence back', () => {
    const ticket = ticketOf(7, 123_456, LANES.more);
    expect([laneOf(ticket), shardOf(ticket), sequenceOf(ticket)]).toEqual([LANES.more, 7, 123_456]);
    expect(ticketOf(0, 1, LANES.more)).toBeGreaterThan(ticketOf(QUEUE_SHARDS - 1, 10 ** 11, LANES.first));
    expect(Number.isSafeInteger(ticketOf(QUEUE_SHARDS - 1, 10 ** 12, LANES.regrade))).toBe(true);
  });

  it('claims from a lane only once the lanes before it are empty, however long they have waited', () => {
    const queue = allLanes().map((counter) =>
      counter.lane === LANES.regrade && counter.shard === 0
        ? { ...counter, tail: 1 }
        : counter.lane === LANES.more && counter.shard === 3
          ? { ...counter, tail: 2 }
          : counter,
    );
    expect(nextToClaim(queue)?.ticket).toBe(ticketOf(3, 1, LANES.more));
    // A first job arriving after them goes ahead of both: position 1; the others move back one place.
    const withFirst = queue.map((counter) => (counter.lane === LANES.first && counter.shard === 9 ? { ...counter, tail: 1 } : counter));
    expect(nextToClaim(withFirst)?.ticket).toBe(ticketOf(9, 1, LANES.first));
    expect(queuePosition(ticketOf(9, 1, LANES.first), withFirst)).toBe(1);
    expect(queuePosition(ticketOf(3, 2, LANES.more), withFirst)).toBe(3);
    expect(queuePosition(ticketOf(0, 1, LANES.regrade), withFirst)).toBe(4);
    expect(ticketToIssue(laneCounters(withFirst, LANES.more)).ticket).toBe(ticketOf(0, 1, LANES.more));
  });

  it('reports each queued job’s exact place in the order claimed, through any interleaving of lanes, superseded jobs and claims', () => {
    const random = seeded(29);
    let counters: QueueCounters = allLanes();
    const queued = new Set<number>();
    const claimed: number[] = [];
    const wrong: { step: number; ticket: number; rank: number; position: number }[] = [];
    const bump = (target: QueueShard, change: Partial<QueueShard>) =>
      (counters = counters.map((other) => (other === target ? { ...other, ...change } : other)));
    for (let step = 0; step < 1_200; step++) {
      const roll = random();
      if (roll < 0.45) {
        // A submission or a regrade's chunk, in a lane at random.
        const lane = Math.floor(random() * QUEUE_LANES);
        const own = laneCounters(counters, lane);
        const runs =
          lane === LANES.regrade
            ? ticketsToIssue(own, Array.from({ length: 1 + Math.floor(random() * 10) })).runs
            : [{ shard: ticketToIssue(own, random() < 0.5 ? 1 : QUEUE_SHARDS, random).shard, tickets: [] as number[] }];
        for (const run of runs) {
          const current = counters.find((other) => other.lane === run.shard.lane && other.shard === run.shard.shard)!;
          const count = Math.max(1, run.tickets.length);
          for (let index = 1; index <= count; index++) queued.add(ticketOf(current.shard, current.tail + index, current.lane));
          bump(current, { tail: current.tail + count });
        }
      } else if (roll < 0.6 && queued.size > 0) {
        // A newer version supersedes a queued job: its ticket is given up (giveUpSuperseded).
        const tickets = [...queued];
        const ticket = tickets[Math.floor(random() * tickets.length)]!;
        queued.delete(ticket);
        const counter = counters.find((other) => (other.lane ?? 0) === laneOf(ticket) && other.shard === shardOf(ticket))!;
        bump(counter, { abandoned: [...(counter.abandoned ?? []), sequenceOf(ticket)] });
      } else {
        const next = nextToClaim(counters);
        if (!next) continue;
        const passed = next.shard.head + 1;
        if (!next.shard.abandoned?.includes(passed)) {
          claimed.push(next.ticket);
          queued.delete(next.ticket);
        }
        bump(next.shard, { head: passed, abandoned: (next.shard.abandoned ?? []).filter((given) => given !== passed) });
      }
      const order = [...queued].sort((a, b) => a - b);
      order.forEach((ticket, rank) => {
        const position = queuePosition(ticket, counters);
        if (position !== rank + 1) wrong.push({ step, ticket, rank: rank + 1, position });
      });
      // The next claim is the first in that order (unless it passes a ticket given up first).
      const next = nextToClaim(counters);
      if (next && !next.shard.abandoned?.includes(next.shard.head + 1) && next.ticket !== order[0])
        wrong.push({ step, ticket: next.ticket, rank: 1, position: -1 });
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(claimed.length).toBeGreaterThan(300);
    expect(new Set(claimed.map(laneOf)).size).toBe(QUEUE_LANES);
  });
});
