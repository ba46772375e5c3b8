import { describe, expect, it } from 'vitest';
import { daysLate, lateRefusal } from '#shared/submissions/submission.ts';

// How late a submission is, and when lateness refuses it.

const due = '2026-10-10T23:59:59.000Z';
const at = (iso: string) => new Date(iso);

describe('days late', () => {
  it('is 0 up to and at the due instant, and without a due date', () => {
    expect(daysLate(at('2026-10-01T00:00:00.000Z'), due)).toBe(0);
    expect(daysLate(at(due), due)).toBe(0);
    expect(daysLate(at('2030-01-01T00:00:00.000Z'), undefined)).toBe(0);
  });

  it('counts any part of a day as a whole day', () => {
    expect(daysLate(at('2026-10-11T00:00:00.000Z'), due)).toBe(1);
    expect(daysLate(at('2026-10-11T23:59:59.000Z'), due)).toBe(1);
    expect(daysLate(at('2026-10-11T23:59:59.001Z'), due)).toBe(2);
    expect(daysLate(at('2026-10-20T12:00:00.000Z'), due)).toBe(10);
  });

  it('follows due dates given with an offset', () => {
    expect(daysLate(at('2026-10-11T03:59:59.000Z'), '2026-10-10T23:59:59-04:00')).toBe(0);
    expect(daysLate(at('2026-10-11T04:00:00.000Z'), '2026-10-10T23:59:59-04:00')).toBe(1);
  });
});

describe('a late submission is refused', () => {
  it('only when the gradeable refuses late submission and the days exceed its allowance', () => {
    const strict = { late_submission_allowed: false, late_days: 2 };
    expect(lateRefusal(0, strict)).toBeUndefined();
    expect(lateRefusal(2, strict)).toBeUndefined();
    expect(lateRefusal(3, strict)).toBe(
      'The due date has passed: this submission would be 3 days late, and this gradeable accepts at most 2 days late.',
    );
  });

  it('with no allowance, from the first day, in the singular', () => {
    expect(lateRefusal(1, { late_submission_allowed: false })).toBe(
      'The due date has passed: this submission would be 1 day late, and this gradeable accepts at most 0 days late.',
    );
    expect(lateRefusal(2, { late_submission_allowed: false, late_days: 1 })).toBe(
      'The due date has passed: this submission would be 2 days late, and this gradeable accepts at most 1 day late.',
    );
  });

  it('never when late submission is allowed (the default) or the gradeable has no due date', () => {
    expect(lateRefusal(30, {})).toBeUndefined();
    expect(lateRefusal(30, { late_submission_allowed: true, late_days: 0 })).toBeUndefined();
    expect(lateRefusal(30, { late_submission_allowed: false, late_days: 0, has_due_date: false })).toBeUndefined();
  });
});

describe('an extension', () => {
  it('adds its days to what a gradeable that refuses late submission accepts', () => {
    const strict = { late_submission_allowed: false, late_days: 1 };
    expect(lateRefusal(3, strict, 2)).toBeUndefined();
    expect(lateRefusal(4, strict, 2)).toBe(
      'The due date has passed: this submission would be 4 days late, and this gradeable accepts at most 3 days late (with an extension of 2 days).',
    );
    expect(lateRefusal(2, { late_submission_allowed: false }, 1)).toBe(
      'The due date has passed: this submission would be 2 days late, and this gradeable accepts at most 1 day late (with an extension of 1 day).',
    );
  });
});
