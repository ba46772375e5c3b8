import { beforeEach, describe, expect, it, vi } from 'vitest';
import { LANES, QUEUE_SHARDS, type QueueCounters } from '#shared/data/jobs.ts';
import type { RegradeRecord } from '#shared/data/regrades.ts';
import {
  AFTER_REGRADE_CANCELLED,
  afterRegradeCancelled,
  countersAfter,
  planRegradeChunk,
  regradeTransaction,
} from '#shared/grading/regrade-plan.ts';
import { ticketOf } from '#shared/queue/tickets.ts';

// A regrade's chunk: its transaction's items by name, and what a cancelled one does next.

// The item builders name their tables (any name will do here).
beforeEach(() => {
  for (const table of ['SUBMISSIONS', 'JOBS']) vi.stubEnv(`${table}_TABLE`, table.toLowerCase());
});

const record: RegradeRecord = {
  regradeId: 'rg_test',
  term: 'f26',
  course: 'sample',
  gradeableId: 'hw',
  total: 5,
  queued: 0,
  skipped: 2,
  graded: 0,
  failed: 0,
  requestedBy: 'instructor',
  createdAt: '2026-10-01T12:00:00.000Z',
};

const regradeLane = (tails: number[]): QueueCounters =>
  Array.from({ length: QUEUE_SHARDS }, (_, shard) => ({ lane: LANES.regrade, shard, head: 0, tail: tails[shard] ?? 0 }));

const targets = [
  { ownerId: 'amy', version: 2 },
  { ownerId: 'bob', version: 1, commit: 'a'.repeat(40) },
  { ownerId: 'cat', version: 3 },
];

describe('planRegradeChunk', () => {
  it("names a job and a version per target, in the chunk's order, a counter per shard whose tickets it takes, and the regrade", () => {
    const plan = planRegradeChunk({ record, created: false }, targets, 0, regradeLane([]));
    expect(plan.items.jobs).toHaveLength(3);
    expect(plan.items.versions).toHaveLength(3);
    expect(plan.items.counters).toHaveLength(plan.runs.length);
    expect(plan.tickets).toEqual([0, 1, 2].map((shard) => ticketOf(shard, 1, LANES.regrade)));
    expect(plan.items.jobs.map((job) => job.Put?.Item?.['ownerId'])).toEqual(['amy', 'bob', 'cat']);
    expect(plan.items.jobs[1]?.Put?.Item?.['commit']).toBe('a'.repeat(40));
    expect(plan.items.versions.map((version) => version.Update?.Key?.['ownerId'])).toEqual(['amy', 'bob', 'cat']);
  });

  it('creates the regrade with its first chunk, counting the versions skipped, and adds to its counts later', () => {
    const first = planRegradeChunk({ record, created: false }, targets, 1, regradeLane([]));
    expect(first.items.progress.Put?.Item).toMatchObject({ queued: 3, skipped: 3 });
    const later = planRegradeChunk({ record, created: true }, targets, 1, regradeLane([]));
    expect(later.items.progress.Update?.ExpressionAttributeValues).toEqual({ ':queued': 3, ':skipped': 1 });
  });
});

describe('afterRegradeCancelled', () => {
  it('skips each version queued meanwhile, by its place in the chunk, whatever its place in the transaction', () => {
    const plan = planRegradeChunk({ record, created: true }, targets, 0, regradeLane([]));
    const { items, reasons } = regradeTransaction(plan.items);
    const versionOf = (index: number) => items.indexOf(plan.items.versions[index]!);
    const after = afterRegradeCancelled(reasons([versionOf(0), versionOf(2)]));
    expect(after).toEqual({ readQueue: false, skip: new Set([0, 2]) });
  });

  it('reads the queue again when tickets were taken meanwhile (a counter moved on, or a ticket has its job)', () => {
    expect(afterRegradeCancelled([{ name: 'counters', index: 1 }])).toEqual({ readQueue: true, skip: new Set() });
    expect(afterRegradeCancelled([{ name: 'jobs', index: 0 }]).readQueue).toBe(true);
  });

  it('tries the same chunk again on conflicts alone or a failed count', () => {
    expect(afterRegradeCancelled([])).toEqual({ readQueue: false, skip: new Set() });
    expect(afterRegradeCancelled([{ name: 'progress', index: 0 }])).toEqual({ readQueue: false, skip: new Set() });
    expect(AFTER_REGRADE_CANCELLED.progress).toEqual(['retry']);
  });
});

describe('countersAfter', () => {
  it("moves each shard's tail on by the tickets it issued, and no other", () => {
    // Shard 2 is behind: its free ticket is the lowest, then those of shards 0 and 1.
    const queue = regradeLane(Array.from({ length: QUEUE_SHARDS }, (_, shard) => (shard === 2 ? 1 : 2)));
    const plan = planRegradeChunk({ record, created: true }, targets, 0, queue);
    const after = countersAfter(queue, plan.runs);
    expect(after.map((shard) => shard.tail).slice(0, 4)).toEqual([3, 3, 2, 2]);
    expect(after.slice(3)).toEqual(queue.slice(3));
  });
});
