import { describe, expect, it } from 'vitest';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { chargeGradeable, chargeLateDays, lateDayGradeable, type LateDayGradeable } from '#shared/submissions/late-days.ts';
import type { Submission } from '#shared/submissions/submission.ts';

const gradeable = (allowed: number, daysLate: number | undefined, extension = 0, id = 'hw'): LateDayGradeable => ({
  id,
  dueAt: '2026-10-10T11:59:59Z',
  allowed,
  daysLate,
  ...(extension ? { extension: { days: extension, reason: 'illness' } } : {}),
});

// The cases the reference's own late-day tests check: (gradeable allowance, days late, extension, budget left).
describe('one gradeable (Submitty LateDayInfo)', () => {
  it.each([
    ['no submission', 0, undefined, 0, 0, 'Unsubmitted', 0],
    ['on time', 0, 0, 0, 0, 'Good', 0],
    ['late within an extension', 0, 2, 4, 0, 'Good', 0],
    ['late within allowance and budget', 4, 2, 0, 3, 'Late', 2],
    ['slightly late', 4, 1, 0, 3, 'Late', 1],
    ['late beyond a shorter extension', 4, 2, 1, 3, 'Late', 1],
    ['late with no allowance and no budget', 0, 1, 0, 0, 'Bad', 0],
    ['too few days left in the budget', 3, 2, 0, 1, 'Bad', 0],
    ['too few days allowed on the gradeable', 1, 2, 0, 10, 'Bad', 0],
    ['all the budget', 3, 2, 0, 2, 'Late', 2],
    ['the allowance bounds the budget', 5, 2, 0, 10, 'Late', 2],
    ['extension covers it all', 5, 2, 2, 3, 'Good', 0],
    ['would be bad without the extension', 5, 2, 2, 0, 'Good', 0],
    ['extension with no allowance', 0, 2, 2, 5, 'Good', 0],
    ['extension plus one charged day', 1, 2, 1, 2, 'Late', 1],
    ['beyond extension with no budget', 5, 3, 1, 0, 'Bad', 0],
  ] as const)('%s', (_, allowed, daysLate, extension, before, status, charged) => {
    const charge = chargeGradeable(gradeable(allowed, daysLate, extension), before);
    expect(charge).toMatchObject({ status, charged, remaining: before - charged });
  });
});

describe('a term of gradeables (Submitty LateDays)', () => {
  const due = (day: number) => `2026-10-${String(day).padStart(2, '0')}T23:59:59Z`;
  const hw = (id: string, day: number, allowed: number, daysLate: number | undefined): LateDayGradeable => ({
    id,
    dueAt: due(day),
    allowed,
    daysLate,
  });

  it('charges in due-date order, whatever order the gradeables come in', () => {
    const { charges, remaining } = chargeLateDays(3, [], [hw('hw3', 20, 2, 2), hw('hw1', 1, 2, 2), hw('hw2', 10, 2, 1)]);
    expect(['hw1', 'hw2', 'hw3'].map((id) => charges.get(id)?.status)).toEqual(['Late', 'Late', 'Bad']);
    expect(charges.get('hw3')).toMatchObject({ charged: 0, daysLate: 2, remaining: 0 });
    expect(remaining).toBe(0);
  });

  it('a grant sets the budget from its date on, less the days already charged', () => {
    const { charges, remaining } = chargeLateDays(2, [{ since: due(5), allowed: 5 }], [hw('hw1', 1, 2, 2), hw('hw2', 10, 3, 3)]);
    expect(charges.get('hw1')).toMatchObject({ status: 'Late', charged: 2, remaining: 0 });
    // 5 in all, 2 already used: 3 left before hw2.
    expect(charges.get('hw2')).toMatchObject({ status: 'Late', charged: 3, remaining: 0 });
    expect(remaining).toBe(0);
  });

  it('a grant below the days used leaves no budget, never a negative one', () => {
    const { charges, remaining } = chargeLateDays(4, [{ since: due(5), allowed: 1 }], [hw('hw1', 1, 3, 3), hw('hw2', 10, 3, 1)]);
    expect(charges.get('hw2')).toMatchObject({ status: 'Bad', charged: 0, remaining: 0 });
    expect(remaining).toBe(0);
  });

  it('a grant at the due date itself counts for that gradeable', () => {
    const { charges } = chargeLateDays(0, [{ since: due(1), allowed: 2 }], [hw('hw1', 1, 2, 2)]);
    expect(charges.get('hw1')).toMatchObject({ status: 'Late', charged: 2 });
  });

  it('gradeables without a due date come last and a cancelled one charges nothing', () => {
    const undated: LateDayGradeable = { id: 'quiz', dueAt: undefined, allowed: 2, daysLate: 0 };
    const { charges, remaining } = chargeLateDays(2, [], [undated, hw('hw1', 1, 2, undefined), hw('hw2', 2, 2, 1)]);
    expect(charges.get('hw1')).toMatchObject({ status: 'Unsubmitted', charged: 0, remaining: 2 });
    expect(charges.get('quiz')).toMatchObject({ status: 'Good', remaining: 1 });
    expect(remaining).toBe(1);
  });
});

describe('the budget left as of a moment', () => {
  const due = (day: number) => `2026-10-${String(day).padStart(2, '0')}T23:59:59Z`;
  const hw = (id: string, day: number, daysLate: number | undefined): LateDayGradeable => ({ id, dueAt: due(day), allowed: 3, daysLate });

  it('counts no grant after it, and every gradeable charged before it', () => {
    const result = chargeLateDays(2, [{ since: due(20), allowed: 6 }], [hw('hw1', 1, 1), hw('hw2', 25, 0)], new Date(due(10)));
    expect(result.remaining).toBe(5);
    expect(result.remainingAsOf).toBe(1);
    expect(chargeLateDays(2, [{ since: due(20), allowed: 6 }], [hw('hw1', 1, 1)], new Date(due(20))).remainingAsOf).toBe(5);
    expect(chargeLateDays(2, [], [hw('hw1', 1, 1)]).remainingAsOf).toBe(1);
  });
});

describe('a gradeable as the rules see it', () => {
  const document = (dates: GradeableDocument['dates']) => ({ id: 'hw', type: 'Electronic File', dates }) as GradeableDocument;
  const submission = (activeVersion: number, daysLate: number) =>
    ({
      highestVersion: 2,
      activeVersion,
      versions: [1, 2].map((version) => ({ version, daysLate: version * daysLate })),
    }) as unknown as Submission;
  const dates = { submission_due_date: '2026-10-10T23:59:59.000Z', late_days: 2 };

  it('takes the active version’s days late, none when cancelled or without a submission', () => {
    expect(lateDayGradeable(document(dates), submission(2, 1), undefined)).toEqual({
      id: 'hw',
      dueAt: dates.submission_due_date,
      allowed: 2,
      daysLate: 2,
    });
    expect(lateDayGradeable(document(dates), submission(1, 1), undefined).daysLate).toBe(1);
    expect(lateDayGradeable(document(dates), submission(0, 1), undefined).daysLate).toBeUndefined();
    expect(lateDayGradeable(document(dates), undefined, undefined).daysLate).toBeUndefined();
  });

  it('has no due date, and no day late, when has_due_date is false', () => {
    expect(lateDayGradeable(document({ ...dates, has_due_date: false }), submission(2, 1), undefined)).toMatchObject({
      dueAt: undefined,
      daysLate: 0,
    });
  });

  it('carries an extension of at least a day, with its reason', () => {
    expect(lateDayGradeable(document(dates), undefined, { days: 2, reason: 'illness' }).extension).toEqual({ days: 2, reason: 'illness' });
    expect(lateDayGradeable(document(dates), undefined, { days: 0, reason: '' })).not.toHaveProperty('extension');
  });
});
