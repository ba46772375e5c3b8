import { describe, expect, it } from 'vitest';
import { LANES } from '#shared/data/jobs.ts';
import type { VersionSummary } from '#shared/data/submissions.ts';
import { queuedJobsRefusal, QUEUED_JOBS_RETRY_SECONDS } from '#shared/submissions/limits.ts';
import { loadAfter, queueShare } from '#shared/queue/shares.ts';

// A submission's share of the grading queue: its lane, the version it supersedes, its student's count.

const version = (number: number, state: VersionSummary['state'], submittedBy = 'ann'): VersionSummary => ({
  version: number,
  submittedAt: '2026-09-01T00:00:00Z',
  submittedBy,
  daysLate: 0,
  ticket: 100 + number,
  state,
});

describe('queueShare', () => {
  it('puts a student with nothing queued or being graded in the first lane, and counts the job', () => {
    expect(queueShare([], { userId: 'ann', inFlight: 0 }, new Set())).toEqual({
      lane: LANES.first,
      load: { userId: 'ann', read: 0, delta: 1 },
    });
  });

  it('puts a student’s first job in the rush lane while their course is past its burst limit this minute', () => {
    const student = { userId: 'ann', inFlight: 0 };
    expect(queueShare([], student, new Set(), { count: 5, limit: 5 }).lane).toBe(LANES.first);
    expect(queueShare([], student, new Set(), { count: 6, limit: 5 })).toEqual({
      lane: LANES.rush,
      load: { userId: 'ann', read: 0, delta: 1 },
    });
  });

  it('puts a student with jobs elsewhere in the next lane', () => {
    const share = queueShare([version(1, 'graded')], { userId: 'ann', inFlight: 2 }, new Set());
    expect(share).toMatchObject({ lane: LANES.more, load: { read: 2, delta: 1 } });
    expect(share.supersede).toBeUndefined();
    expect(loadAfter(share)).toBe(3);
  });

  it('supersedes the newest queued version; one’s own frees its place, so the count stays and the lane is as if it were gone', () => {
    const versions = [version(1, 'superseded'), version(2, 'graded'), version(3, 'queued'), version(4, 'grading')];
    const share = queueShare(versions, { userId: 'ann', inFlight: 2 }, new Set());
    expect(share.supersede?.version).toBe(3);
    expect(share).toMatchObject({ lane: LANES.more, load: { read: 2, delta: 0 } }); // version 4 is being graded
    expect(queueShare([version(1, 'queued')], { userId: 'ann', inFlight: 1 }, new Set())).toMatchObject({
      lane: LANES.first,
      load: { read: 1, delta: 0 },
    });
  });

  it('a team mate’s queued version is superseded and frees their count; one kept (a regrade’s, staff’s) is not', () => {
    const mate = queueShare([version(1, 'queued', 'bob')], { userId: 'ann', inFlight: 0 }, new Set());
    expect(mate).toMatchObject({ lane: LANES.first, supersede: { version: 1 }, load: { delta: 1 } });
    expect(mate.supersede?.ticket).toBe(101);
    expect(queueShare([version(1, 'queued'), version(2, 'queued')], { userId: 'ann', inFlight: 2 }, new Set([2])).supersede?.version).toBe(
      1,
    );
  });

  it('staff submitting for a student are not counted: first lane, no count', () => {
    const share = queueShare([version(1, 'queued')], undefined, new Set());
    expect(share).toMatchObject({ lane: LANES.first, supersede: { version: 1 } });
    expect(share.load).toBeUndefined();
    expect(loadAfter(share)).toBeUndefined();
  });
});

describe('queuedJobsRefusal', () => {
  it('refuses beyond the limit with 429 and a Retry-After; never refuses what is not counted', () => {
    expect(queuedJobsRefusal(5, 5)).toBeUndefined();
    expect(queuedJobsRefusal(undefined, 1)).toBeUndefined();
    const refusal = queuedJobsRefusal(6, 5);
    expect(refusal).toMatchObject({
      kind: 'too-many-requests',
      message: `Too many of your submissions are waiting for grading: at most 5 at a time. Try again in ${QUEUED_JOBS_RETRY_SECONDS} seconds.`,
    });
  });
});
