import { describe, expect, it } from 'vitest';
import type { VersionSummary } from '#shared/data/submissions.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { queueShare } from '#shared/queue/shares.ts';
import {
  idempotencyKeyRefusal,
  isOpenTo,
  kindRefusal,
  queueRefusal,
  repeatRefusal,
  submitterRefusal,
} from '#shared/submissions/submit-refusals.ts';

// A submission's refusals, given what was sent and read: each says nothing when its rule holds.

const gradeable = (fields: Record<string, unknown> = {}): GradeableDocument =>
  ({ id: 'hw', title: 'Hw', type: 'Electronic File', dates: {}, ...fields }) as unknown as GradeableDocument;
const vcs = { repository_type: 'public-github', vcs_path: 'https://github.com/x/{$user_id}', vcs_subdirectory: '' };
const now = new Date('2026-10-01T12:00:00Z');

describe('submitterRefusal', () => {
  it('lets a student submit for themselves only, and staff for anyone', () => {
    expect(submitterRefusal('ann', 'ann', false)).toBeUndefined();
    expect(submitterRefusal('ann', 'bob', false)?.message).toBe('API key and specified user_id are not for the same user.');
    expect(submitterRefusal('ta', 'bob', true)).toBeUndefined();
  });
});

describe('isOpenTo', () => {
  it('opens a gradeable to students at its open date, to staff before it, and to nobody when it is not there', () => {
    const opensLater = gradeable({ dates: { submission_open_date: '2026-10-02T00:00:00Z' } });
    expect(isOpenTo(opensLater, false, now)).toBe(false);
    expect(isOpenTo(opensLater, true, now)).toBe(true);
    expect(isOpenTo(gradeable({ dates: { submission_open_date: '2026-09-30T00:00:00Z' } }), false, now)).toBe(true);
    expect(isOpenTo(undefined, true, now)).toBe(false);
  });
});

describe('kindRefusal', () => {
  it('takes a VCS version only for a VCS gradeable, and files only for one without version control', () => {
    expect(kindRefusal(gradeable({ vcs }), 'vcs')).toBeUndefined();
    expect(kindRefusal(gradeable(), 'vcs')?.message).toBe('Student API for upload only supports VCS gradeables');
    expect(kindRefusal(gradeable({ type: 'Checkpoint' }), 'vcs')).toBeDefined();
    expect(kindRefusal(gradeable(), 'files')).toBeUndefined();
    expect(kindRefusal(gradeable({ vcs }), 'files')?.message).toMatch(
      /^Only Electronic File gradeables without version control take files/,
    );
    expect(kindRefusal(gradeable({ type: 'Numeric' }), 'files')).toBeDefined();
  });
});

describe('idempotency', () => {
  it('refuses a malformed Idempotency-Key, and the same key sent with another request', () => {
    expect(idempotencyKeyRefusal(undefined)).toBeUndefined();
    expect(idempotencyKeyRefusal('retry-1')).toBeUndefined();
    expect(idempotencyKeyRefusal('')?.message).toBe('The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
    expect(idempotencyKeyRefusal('x'.repeat(256))).toBeDefined();
    expect(repeatRefusal({ fingerprint: 'a' }, 'a')).toBeUndefined();
    expect(repeatRefusal({ fingerprint: 'a' }, 'b')?.message).toBe('This Idempotency-Key was already used for a different request.');
  });
});

describe('queueRefusal', () => {
  const version = (number: number, submittedAt: string, state: VersionSummary['state'] = 'graded'): VersionSummary => ({
    version: number,
    submittedAt,
    submittedBy: 'ann',
    daysLate: 0,
    ticket: 100 + number,
    state,
  });
  const limits = { submissions: { perMinute: 2, maxVersions: 3 }, maxQueued: 1 };
  const share = (versions: VersionSummary[], inFlight: number) => queueShare(versions, { userId: 'ann', inFlight }, new Set());

  it('refuses a version past the submission’s limits before the student’s queued jobs', () => {
    const old = [version(1, '2026-09-01T00:00:00Z'), version(2, '2026-09-01T00:00:00Z'), version(3, '2026-09-01T00:00:00Z')];
    expect(queueRefusal(old, share(old, 5), now, limits)?.message).toBe('This submission has reached its limit of 3 versions.');
    const recent = [version(1, '2026-10-01T11:59:30Z'), version(2, '2026-10-01T11:59:40Z')];
    expect(queueRefusal(recent, share(recent, 0), now, limits)?.kind).toBe('too-many-requests');
  });

  it('refuses a job over the student’s jobs queued or being graded, unless it supersedes their own queued one', () => {
    expect(queueRefusal([], share([], 0), now, limits)).toBeUndefined();
    expect(queueRefusal([], share([], 1), now, limits)?.message).toMatch(
      /^Too many of your submissions are waiting for grading: at most 1/,
    );
    const queued = [version(1, '2026-09-01T00:00:00Z', 'queued')];
    expect(queueRefusal(queued, share(queued, 1), now, limits)).toBeUndefined();
    // Staff submitting for a student count nothing.
    expect(queueRefusal([], queueShare([], undefined, new Set()), now, { ...limits, maxQueued: 0 })).toBeUndefined();
  });
});
