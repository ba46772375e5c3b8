import { TICKETS_PER_MS } from '#shared/queue/tickets.ts';
import { describe, expect, it } from 'vitest';
import type { RegradeRecord } from '#shared/data/regrades.ts';
import { chunks } from '#shared/lists.ts';
import { REGRADE_CHUNK, isRegradeId, newRegradeId, regradeJob, requestedRegradeVersion, selectRegrade } from '#shared/grading/regrade.ts';
import type { Submission, VersionState } from '#shared/submissions/submission.ts';

// Regrade: which versions a request queues again, and the job object's progress.

const submission = (ownerId: string, states: VersionState[], activeVersion = states.length): Submission => ({
  term: 'f26',
  course: 'sample',
  gradeableId: 'hw',
  ownerId,
  highestVersion: states.length,
  activeVersion,
  versions: states.map((state, index) => ({
    version: index + 1,
    submittedAt: '2026-10-01T12:00:00.000Z',
    submittedBy: ownerId,
    daysLate: 0,
    ticket: 10 + index,
    state,
  })),
});

describe('selectRegrade', () => {
  const class_ = [
    submission('amy', ['graded', 'graded']),
    submission('bob', ['failed']),
    submission('cat', ['graded', 'queued']),
    submission('dan', ['graded', 'grading']),
    submission('eve', ['graded'], 0), // cancelled
    submission('fay', ['graded', 'graded'], 1),
    submission('gus', []), // TA grading alone: no version
  ];

  it("carries a version's recorded commit, which its job grades again", () => {
    const graded = submission('hal', ['graded', 'graded']);
    const commit = 'a'.repeat(40);
    const withCommit = { ...graded, versions: graded.versions.map((version, index) => (index === 0 ? { ...version, commit } : version)) };
    expect(selectRegrade([withCommit], { kind: 'version', ownerId: 'hal', version: 1 })).toEqual({
      requeue: [{ ownerId: 'hal', version: 1, commit }],
      skipped: [],
    });
    expect(selectRegrade([withCommit], { kind: 'active', ownerId: 'hal' })).toEqual({
      requeue: [{ ownerId: 'hal', version: 2 }],
      skipped: [],
    });
  });

  it('every active version: graded and failed ones queued again, queued or grading ones skipped, cancelled ones left out', () => {
    expect(selectRegrade(class_, { kind: 'all' })).toEqual({
      requeue: [
        { ownerId: 'amy', version: 2 },
        { ownerId: 'bob', version: 1 },
        { ownerId: 'fay', version: 1 },
      ],
      skipped: [
        { ownerId: 'cat', version: 2 },
        { ownerId: 'dan', version: 2 },
      ],
    });
  });

  it("one owner's active version, or one version of theirs", () => {
    expect(selectRegrade(class_, { kind: 'active', ownerId: 'fay' })).toEqual({ requeue: [{ ownerId: 'fay', version: 1 }], skipped: [] });
    expect(selectRegrade(class_, { kind: 'version', ownerId: 'fay', version: 2 })).toEqual({
      requeue: [{ ownerId: 'fay', version: 2 }],
      skipped: [],
    });
    expect(selectRegrade(class_, { kind: 'version', ownerId: 'cat', version: 2 })).toEqual({
      requeue: [],
      skipped: [{ ownerId: 'cat', version: 2 }],
    });
    // A cancelled submission's versions may still be regraded one by one.
    expect(selectRegrade(class_, { kind: 'version', ownerId: 'eve', version: 1 })).toEqual({
      requeue: [{ ownerId: 'eve', version: 1 }],
      skipped: [],
    });
  });

  it('refuses what does not exist, with a message', () => {
    expect(selectRegrade(class_, { kind: 'active', ownerId: 'zed' })).toBe('zed has no submission to regrade.');
    expect(selectRegrade(class_, { kind: 'active', ownerId: 'gus' })).toBe('gus has no submission to regrade.');
    expect(selectRegrade(class_, { kind: 'active', ownerId: 'eve' })).toBe(
      'eve has no active version to regrade (the submission is cancelled).',
    );
    expect(selectRegrade(class_, { kind: 'version', ownerId: 'amy', version: 3 })).toBe('There is no version 3: the highest is 2.');
  });

  it('an empty class selects nothing', () => {
    expect(selectRegrade([], { kind: 'all' })).toEqual({ requeue: [], skipped: [] });
  });
});

describe('requestedRegradeVersion', () => {
  it('absent, or a whole number from 1 (as the HTTP layer reads it) that needs user_id', () => {
    expect(requestedRegradeVersion(undefined, undefined)).toBeUndefined();
    expect(requestedRegradeVersion(undefined, 'amy')).toBeUndefined();
    expect(requestedRegradeVersion(2, 'amy')).toBe(2);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(requestedRegradeVersion(bad, 'amy')).toBe('The field version_to_regrade must be a whole number from 1.');
    }
    expect(requestedRegradeVersion(1, undefined)).toBe('The field version_to_regrade needs user_id: the student whose version to regrade.');
  });
});

describe('chunks', () => {
  it('splits in order into pieces of at most the size; the transaction limit allows 41 versions', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 49)).toEqual([]);
    expect(
      chunks(
        Array.from({ length: 82 }, (_, index) => index),
        REGRADE_CHUNK,
      ).map((piece) => piece.length),
    ).toEqual([41, 41]);
    // Two items per version, the one counter taking the chunk's tickets, the regrade's counts: DynamoDB's limit is 100;
    // the chunk's tickets in a row within one millisecond of one counter.
    expect(2 * REGRADE_CHUNK + 1 + 1).toBeLessThanOrEqual(100);
    expect(REGRADE_CHUNK).toBeLessThanOrEqual(TICKETS_PER_MS);
  });
});

describe('regradeJob', () => {
  const record = (counts: Partial<RegradeRecord>): RegradeRecord => ({
    regradeId: 'rg_AAAAAAAAAAAAAAAAAAAAAA',
    term: 'f26',
    course: 'sample',
    gradeableId: 'hw',
    total: 5,
    queued: 4,
    skipped: 1,
    graded: 0,
    failed: 0,
    requestedBy: 'instructor',
    createdAt: '2026-11-23T08:00:00.000Z',
    ...counts,
  });

  it('queued until a version ends, running while some have, done when every one has', () => {
    expect(regradeJob(record({}))).toEqual({
      regrade_id: 'rg_AAAAAAAAAAAAAAAAAAAAAA',
      gradeable_id: 'hw',
      state: 'queued',
      total: 5,
      queued: 4,
      graded: 0,
      failed: 0,
      skipped: 1,
      regrade_by: 'instructor',
      created_at: '2026-11-23T08:00:00.000Z',
      message: '4 submissions added to queue for regrading',
    });
    expect(regradeJob(record({ graded: 1 })).state).toBe('running');
    expect(regradeJob(record({ graded: 3, failed: 1 })).state).toBe('done');
    expect(regradeJob(record({ total: 1, queued: 1, skipped: 0 })).message).toBe('1 submission added to queue for regrading');
  });

  it('not done while versions are still being queued', () => {
    expect(regradeJob(record({ total: 100, queued: 49, skipped: 0, graded: 49 })).state).toBe('running');
    expect(regradeJob(record({ total: 100, queued: 49, skipped: 0 })).state).toBe('queued');
  });

  it('nothing to queue (all skipped, or an empty class) is done at once', () => {
    expect(regradeJob(record({ total: 2, queued: 0, skipped: 2 })).state).toBe('done');
    expect(regradeJob(record({ total: 0, queued: 0, skipped: 0 })).state).toBe('done');
  });
});

describe('regrade ids', () => {
  it('are rg_ and 128 random bits, and nothing else passes', () => {
    const ids = new Set(Array.from({ length: 100 }, newRegradeId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(isRegradeId(id)).toBe(true);
    for (const bad of [
      '',
      'rg_',
      'rg_short',
      'wh_AAAAAAAAAAAAAAAAAAAAAA',
      'rg_AAAAAAAAAAAAAAAAAAAAA/',
      'regrade#rg_AAAAAAAAAAAAAAAAAAAAAA',
      'queue#0',
    ]) {
      expect(isRegradeId(bad)).toBe(false);
    }
  });
});
