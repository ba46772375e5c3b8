import { beforeEach, describe, expect, it, vi } from 'vitest';
import { LANES } from '#shared/data/jobs.ts';
import type { RegradeRecord } from '#shared/data/regrades.ts';
import { AFTER_REGRADE_CANCELLED, afterRegradeCancelled, planRegradeChunk, regradeTransaction } from '#shared/grading/regrade-plan.ts';
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

/** When and on which counter a chunk draws its tickets. */
const drawn = { now: Date.UTC(2026, 9, 1, 12), shard: 5 };

const targets = [
  { ownerId: 'amy', version: 2 },
  { ownerId: 'bob', version: 1, commit: 'a'.repeat(40) },
  { ownerId: 'cat', version: 3 },
];

describe('planRegradeChunk', () => {
  it("names a job and a version per target, in the chunk's order, the one counter taking their tickets, and the regrade", () => {
    const plan = planRegradeChunk({ record, created: false }, targets, 0, drawn);
    expect(plan.items.jobs).toHaveLength(3);
    expect(plan.items.versions).toHaveLength(3);
    expect(plan.items.counters).toHaveLength(1);
    expect(plan.items.counters[0]?.Update?.Key).toEqual({ job: 'tickets#5' });
    expect(plan.tickets).toEqual([0, 1, 2].map((salt) => ticketOf({ lane: LANES.regrade, at: drawn.now, shard: 5, salt })));
    expect(plan.items.jobs.map((job) => job.Put?.Item?.['job'])).toEqual(plan.tickets.map(String));
    expect(plan.items.jobs.map((job) => job.Put?.Item?.['ownerId'])).toEqual(['amy', 'bob', 'cat']);
    expect(plan.items.jobs[1]?.Put?.Item?.['commit']).toBe('a'.repeat(40));
    expect(plan.items.versions.map((version) => version.Update?.Key?.['ownerId'])).toEqual(['amy', 'bob', 'cat']);
  });

  it('creates the regrade with its first chunk, counting the versions skipped, and adds to its counts later', () => {
    const first = planRegradeChunk({ record, created: false }, targets, 1, drawn);
    expect(first.items.progress.Put?.Item).toMatchObject({ queued: 3, skipped: 3 });
    const later = planRegradeChunk({ record, created: true }, targets, 1, drawn);
    expect(later.items.progress.Update?.ExpressionAttributeValues).toEqual({ ':queued': 3, ':skipped': 1 });
  });
});

describe('afterRegradeCancelled', () => {
  it('skips each version queued meanwhile, by its place in the chunk, whatever its place in the transaction', () => {
    const plan = planRegradeChunk({ record, created: true }, targets, 0, drawn);
    const { items, reasons } = regradeTransaction(plan.items);
    const versionOf = (index: number) => items.indexOf(plan.items.versions[index]!);
    const after = afterRegradeCancelled(reasons([versionOf(0), versionOf(2)]));
    expect(after).toEqual({ drawAgain: false, skip: new Set([0, 2]) });
  });

  it('draws the tickets again when one was taken meanwhile (its counter holds it, or it has a job)', () => {
    expect(afterRegradeCancelled([{ name: 'counters', index: 1 }])).toEqual({ drawAgain: true, skip: new Set() });
    expect(afterRegradeCancelled([{ name: 'jobs', index: 0 }]).drawAgain).toBe(true);
  });

  it('tries the same chunk again on conflicts alone or a failed count', () => {
    expect(afterRegradeCancelled([])).toEqual({ drawAgain: false, skip: new Set() });
    expect(afterRegradeCancelled([{ name: 'progress', index: 0 }])).toEqual({ drawAgain: false, skip: new Set() });
    expect(AFTER_REGRADE_CANCELLED.progress).toEqual(['retry']);
  });
});
