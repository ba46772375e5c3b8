import { describe, expect, it } from 'vitest';
import { QUEUE_SHARDS, type QueueCounters, type QueueShard } from '#shared/data/jobs.ts';
import { nextToClaim, queuePosition, ticketOf, ticketsToIssue, ticketToIssue } from '#shared/grading/queue-order.ts';

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
