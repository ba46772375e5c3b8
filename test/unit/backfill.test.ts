import { describe, expect, it } from 'vitest';
import {
  activeLatenessOf,
  memberEntryNeedsCopies,
  parseGradeableKey,
  studentSubmissionNeedsBackfill,
  summaryLine,
  unfinishedMarkerOf,
} from '#infra/admin/backfill.ts';
import { runListing } from '#shared/data/similarity-runs.ts';

const versions = [{ daysLate: 0 }, { daysLate: 3 }];

describe('backfill decisions', () => {
  it('reads the term, course and gradeable of a gradeable key', () => {
    expect(parseGradeableKey('f26/csci1100/hw_1')).toEqual({ term: 'f26', course: 'csci1100', gradeableId: 'hw_1' });
  });

  it("takes the active version's days late, none when no version is active", () => {
    expect(activeLatenessOf({ activeVersion: 2, versions })).toEqual({ activeVersion: 2, daysLate: 3 });
    expect(activeLatenessOf({ activeVersion: 0, versions })).toEqual({ activeVersion: 0, daysLate: undefined });
    expect(activeLatenessOf({})).toEqual({ activeVersion: 0, daysLate: undefined });
  });

  it('backfills a student submission lacking its index key or holding another days late, and nothing else', () => {
    const key = 'f26/c#ada';
    const current = { highestVersion: 2, activeVersion: 2, versions, studentKey: key, activeDaysLate: 3 };
    expect(studentSubmissionNeedsBackfill(current, key)).toBe(false);
    expect(studentSubmissionNeedsBackfill({ ...current, studentKey: undefined }, key)).toBe(true);
    expect(studentSubmissionNeedsBackfill({ ...current, activeDaysLate: undefined }, key)).toBe(true);
    expect(studentSubmissionNeedsBackfill({ ...current, activeDaysLate: 0 }, key)).toBe(true);
    // Cancelled: listed, without days late.
    expect(studentSubmissionNeedsBackfill({ ...current, activeVersion: 0, activeDaysLate: undefined }, key)).toBe(false);
    expect(studentSubmissionNeedsBackfill({ ...current, activeVersion: 0 }, key)).toBe(true);
    expect(studentSubmissionNeedsBackfill({ highestVersion: 1, activeVersion: 0, versions }, key)).toBe(true);
    // TA grading alone, no version: its first version writes the keys.
    expect(studentSubmissionNeedsBackfill({ taGrade: {} }, key)).toBe(false);
  });

  it('copies onto a member entry lacking any copy or holding another version', () => {
    const expected = { studentKey: 'f26/c#ada', gradeableId: 'pair', members: ['ada', 'bob'], activeVersion: 2, daysLate: 1 };
    const current = {
      teamId: 't',
      studentKey: 'f26/c#ada',
      gradeableId: 'pair',
      members: ['ada', 'bob'],
      activeVersion: 2,
      activeDaysLate: 1,
    };
    expect(memberEntryNeedsCopies(current, expected)).toBe(false);
    expect(memberEntryNeedsCopies({ teamId: 't' }, expected)).toBe(true);
    expect(memberEntryNeedsCopies({ ...current, members: undefined }, expected)).toBe(true);
    expect(memberEntryNeedsCopies({ ...current, members: ['ada'] }, expected)).toBe(true);
    expect(memberEntryNeedsCopies({ ...current, activeVersion: 1 }, expected)).toBe(true);
    expect(memberEntryNeedsCopies({ ...current, activeDaysLate: undefined }, expected)).toBe(true);
    const none = { ...expected, activeVersion: 0, daysLate: undefined };
    expect(memberEntryNeedsCopies({ ...current, activeVersion: 0, activeDaysLate: undefined }, none)).toBe(false);
  });

  it('says what it did in one line', () => {
    expect(summaryLine({ scanned: 9, updated: 4, current: 3, skipped: 1, orphaned: 1 })).toBe(
      'Backfill: 9 items scanned, 4 updated, 3 already current, 1 skipped by a concurrent change, 1 without a source to copy.',
    );
  });

  it('marks a course job with its kind while it is queued or running, and nothing else of the summaries table', () => {
    const exportItem = { courseId: 'f26/csci1100#exports', entry: 'export#e1' };
    expect(unfinishedMarkerOf({ ...exportItem, state: 'queued' })).toBe('gradebook-export');
    expect(unfinishedMarkerOf({ ...exportItem, state: 'running' })).toBe('gradebook-export');
    expect(unfinishedMarkerOf({ ...exportItem, state: 'done' })).toBeUndefined();
    expect(unfinishedMarkerOf({ courseId: 'f26/csci1100#jobs', entry: 'job#j1', state: 'running' })).toBe('summaries-job');
    expect(unfinishedMarkerOf({ courseId: 'f26/csci1100#jobs', entry: 'slot', state: 'running' })).toBe(false);
    // A student's summary in the course's own partition, whatever its entry is called.
    expect(unfinishedMarkerOf({ courseId: 'f26/csci1100', entry: 'job#ada', state: 'queued' })).toBe(false);
  });

  it('names the listing entry of a similarity run, and of nothing else', () => {
    const run = {
      courseId: 'f26/csci1100#similarity',
      entry: 'similarity-run#r1',
      gradeableId: 'hw_1',
      createdAt: '2026-11-29T10:00:00.000Z',
    };
    expect(runListing(run)).toEqual({
      run: { courseId: 'f26/csci1100#similarity', entry: 'similarity-listed#hw_1#2026-11-29T10:00:00.000Z#r1', runId: 'r1' },
    });
    expect(runListing({ courseId: run.courseId, entry: 'similarity-listed#hw_1#x#r1' })).toEqual({ listed: 'similarity-listed#hw_1#x#r1' });
    expect(runListing({ courseId: run.courseId, entry: 'similarity-pair#r1#0001' })).toEqual({});
    expect(runListing({ ...run, courseId: 'f26/csci1100' })).toEqual({});
  });
});
