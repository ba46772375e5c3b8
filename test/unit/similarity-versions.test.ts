/**
 * Which versions a similarity run compares (comparedVersions): each owner's active version, by its
 * stored files or its repository's recorded commit; one with neither skipped, saying why. And the
 * repository texts a run keeps for a pair's passages (keptSources), bounded.
 */
import { describe, expect, it } from 'vitest';
import type { VersionSummary } from '#shared/data/submissions.ts';
import { COMMIT_NOT_RECORDED, comparedVersions, keptSources, NOTHING_RECORDED } from '#shared/similarity/job.ts';
import { MAX_KEPT_SOURCE_CHARACTERS } from '#shared/similarity/limits.ts';
import { submissionRecord } from '../support/submissions.ts';

const COMMIT = 'a'.repeat(40);
const REPOSITORY = 'https://git.example.edu/hw1/amy.git';

const version = (number: number, fields: Partial<VersionSummary>): VersionSummary => ({
  version: number,
  submittedAt: '2026-11-01T10:00:00.000Z',
  submittedBy: 'amy',
  daysLate: 0,
  ticket: number,
  state: 'graded',
  ...fields,
});

describe('comparedVersions', () => {
  it("compares each owner's active version: its stored files, or its repository at the commit it recorded", () => {
    const { versions, skipped } = comparedVersions([
      submissionRecord([version(1, { files: 'f-1' }), version(2, { repository: REPOSITORY, commit: COMMIT })], {
        ownerId: 'bob',
        activeVersion: 2,
        highestVersion: 2,
      }),
      submissionRecord([version(1, { files: 'f-2' })], { ownerId: 'amy' }),
    ]);
    expect(versions).toEqual([
      { owner: 'amy', version: 1, filesId: 'f-2' },
      { owner: 'bob', version: 2, repository: REPOSITORY, commit: COMMIT },
    ]);
    expect(skipped).toEqual([]);
  });

  it('skips, saying why, a repository version whose commit is not recorded and a version recording neither files nor repository', () => {
    const { versions, skipped } = comparedVersions([
      submissionRecord([version(1, { repository: REPOSITORY })], { ownerId: 'cy' }),
      submissionRecord([version(1, {})], { ownerId: 'bo' }),
    ]);
    expect(versions).toEqual([]);
    expect(skipped).toEqual([
      { owner: 'bo', version: 1, reason: NOTHING_RECORDED },
      { owner: 'cy', version: 1, reason: COMMIT_NOT_RECORDED },
    ]);
  });

  it('leaves out a submission with no active version (cancelled): it is no submission to compare', () => {
    expect(comparedVersions([submissionRecord([version(1, { files: 'f-1' })], { activeVersion: 0 })])).toEqual({
      versions: [],
      skipped: [],
    });
  });
});

describe('keptSources', () => {
  it("keeps a repository version's texts in their paths' order while the bound lasts", () => {
    const half = 'x'.repeat(MAX_KEPT_SOURCE_CHARACTERS / 2);
    const files = [
      { path: 'a.py', text: half },
      { path: 'b.py', text: half },
      { path: 'c.py', text: 'print(1)' },
    ];
    expect(keptSources(files).map(({ path }) => path)).toEqual(['a.py', 'b.py']);
    expect(keptSources(files.slice(1)).map(({ path }) => path)).toEqual(['b.py', 'c.py']);
  });
});
