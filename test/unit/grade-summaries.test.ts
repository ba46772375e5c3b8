import { describe, expect, it } from 'vitest';
import type { PersonName } from '#shared/courses/course.ts';
import type { GradeableDocument, RubricComponent } from '#shared/gradeables/gradeable.ts';
import { bucketKey, gradeableEntry, releasedGradeables, userSummary } from '#shared/summaries/summary.ts';
import { chargeGradeable, lateDayGradeable, type StudentLateDays } from '#shared/submissions/late-days.ts';
import type { Submission, VersionSummary } from '#shared/submissions/submission.ts';
import { submissionRecord, testCase } from '../support/submissions.ts';
import { mark, rubricComponent } from '../support/rubric.ts';
import { enrollment as enrollmentOf, person as personOf } from '../support/enrollments.ts';

const amy: PersonName = personOf('amy', { givenName: 'Amy', familyName: 'Adams' });

// The nightly grade summaries, in the reference's format: per user, per released gradeable, the score,
// the status and the late days charged.

const component: RubricComponent = rubricComponent('Style', { lower_clamp: -10, marks: [mark(-10, 'plagiarism')] });
const gradeable = (id: string, fields: Partial<GradeableDocument> = {}, dates: GradeableDocument['dates'] = {}) =>
  ({
    id,
    title: id.toUpperCase(),
    type: 'Electronic File',
    syllabus_bucket: 'homework',
    ta_grading: false,
    rubric: [component],
    ...fields,
    dates: { late_days: 2, grade_released_date: '2026-11-01T12:00:00.000Z', ...dates },
  }) as GradeableDocument;
const version = (number: number, daysLate: number): VersionSummary => ({
  version: number,
  submittedAt: '2026-10-01T00:00:00.000Z',
  submittedBy: 'amy',
  daysLate,
  ticket: number,
  state: 'graded',
});
const submission = (daysLate: number, points: number, fields: Partial<Submission> = {}): Submission =>
  submissionRecord([version(1, daysLate)], {
    activeResults: {
      version: 1,
      testCases: [testCase(points, { name: 't', hidden: true })],
    },
    ...fields,
  });
const taGrade = (mark_ids: number[], custom_points: number) => ({
  revision: 1,
  components: { '0': { mark_ids, custom_points, custom_message: 'see me', grader_id: 'ta', graded_at: '2026-10-20T00:00:00.000Z' } },
});

describe('one gradeable of a summary', () => {
  it('is Good and scores its points when on time (hidden tests count)', () => {
    expect(gradeableEntry(gradeable('hw1'), submission(0, 7.5), 'America/New_York')).toEqual({
      id: 'hw1',
      name: 'HW1',
      gradeable_type: 'Electronic File',
      // In the course's time zone: New York's clocks went back that morning (EST, UTC−5).
      grade_released_date: '2026-11-01 07:00:00',
      score: 7.5,
      status: 'Good',
      days_after_deadline: 0,
      days_charged: 0,
      late_days_remaining: 0,
      autograding_score: 7.5,
      tagrading_score: 0,
      components: [],
    });
  });

  // Late days are charged against the student's budget (late-days.ts); an entry gets its charge.
  const charged = (document: GradeableDocument, sub: Submission | undefined, budget: number) =>
    chargeGradeable(lateDayGradeable(document, sub, undefined), budget);
  const due = { submission_due_date: '2026-10-01T23:59:59.000Z' };

  it('is Late within the allowance and the budget, charging every day late, with the budget left after it', () => {
    const hw1 = gradeable('hw1', {}, due);
    expect(gradeableEntry(hw1, submission(1, 8), 'UTC', charged(hw1, submission(1, 8), 3))).toMatchObject({
      score: 8,
      status: 'Late',
      days_after_deadline: 1,
      days_charged: 1,
      late_days_remaining: 2,
    });
    expect(gradeableEntry(hw1, submission(2, 8), 'UTC', charged(hw1, submission(2, 8), 2))).toMatchObject({
      status: 'Late',
      days_charged: 2,
      late_days_remaining: 0,
    });
  });

  it('is Bad beyond the allowance or the budget: scores 0 and charges nothing', () => {
    const hw1 = gradeable('hw1', {}, due);
    expect(gradeableEntry(hw1, submission(3, 8), 'UTC', charged(hw1, submission(3, 8), 5))).toMatchObject({
      score: 0,
      status: 'Bad',
      days_after_deadline: 3,
      days_charged: 0,
      late_days_remaining: 5,
      autograding_score: 8,
    });
    expect(gradeableEntry(hw1, submission(2, 8), 'UTC', charged(hw1, submission(2, 8), 1))).toMatchObject({ score: 0, status: 'Bad' });
    const none = gradeable('hw1', {}, { ...due, late_days: undefined });
    expect(gradeableEntry(none, submission(1, 8), 'UTC', charged(none, submission(1, 8), 5))).toMatchObject({ score: 0, status: 'Bad' });
    // Without a charge given, the student has no budget.
    expect(gradeableEntry(hw1, submission(1, 8), 'UTC')).toMatchObject({ score: 0, status: 'Bad', days_charged: 0 });
  });

  it('names an extension and its reason, and is Good within it', () => {
    const hw1 = gradeable('hw1', {}, due);
    const charge = chargeGradeable(lateDayGradeable(hw1, submission(2, 8), { days: 2, reason: 'illness' }), 0);
    const entry = gradeableEntry(hw1, submission(2, 8), 'UTC', charge);
    expect(entry).toMatchObject({
      score: 8,
      status: 'Good',
      late_day_exceptions: 2,
      reason_for_exception: 'illness',
      days_after_deadline: 2,
      days_charged: 0,
      late_days_remaining: 0,
    });
    expect(Object.keys(entry).slice(4, 12)).toEqual([
      'score',
      'status',
      'late_day_exceptions',
      'reason_for_exception',
      'days_after_deadline',
      'days_charged',
      'late_days_remaining',
      'autograding_score',
    ]);
    expect(gradeableEntry(hw1, submission(0, 8), 'UTC')).not.toHaveProperty('late_day_exceptions');
  });

  it('is Unsubmitted without an active version (none, or cancelled)', () => {
    const unsubmitted = {
      score: 0,
      status: 'Unsubmitted',
      days_after_deadline: 0,
      days_charged: 0,
      late_days_remaining: 0,
      autograding_score: 0,
    };
    expect(gradeableEntry(gradeable('hw1'), undefined, 'UTC')).toMatchObject(unsubmitted);
    expect(gradeableEntry(gradeable('hw1'), submission(1, 8, { activeVersion: 0 }), 'UTC')).toMatchObject(unsubmitted);
  });

  it('counts only the active version’s results', () => {
    const stale = submission(0, 8, { highestVersion: 2, activeVersion: 2, versions: [version(1, 0), version(2, 0)] });
    expect(gradeableEntry(gradeable('hw1'), stale, 'UTC')).toMatchObject({ status: 'Good', score: 0, autograding_score: 0 });
  });

  it('adds the TA score for TA-graded gradeables, the total never below 0, with the components’ titles and scores', () => {
    const withTa = gradeable('hw1', { ta_grading: true });
    expect(gradeableEntry(withTa, submission(0, 6, { taGrade: taGrade([], 4) }), 'UTC')).toMatchObject({
      score: 10,
      autograding_score: 6,
      tagrading_score: 4,
      components: [{ title: 'Style', score: 4 }],
    });
    // The component may go to -10; the TA score stops at 0, and so does the total.
    expect(gradeableEntry(withTa, submission(0, 6, { taGrade: taGrade([0], 0) }), 'UTC')).toMatchObject({
      score: 6,
      tagrading_score: 0,
      components: [{ title: 'Style', score: -10 }],
    });
    // Without ta_grading, a TA grade left on the item does not count.
    expect(gradeableEntry(gradeable('hw1'), submission(0, 6, { taGrade: taGrade([], 4) }), 'UTC')).toMatchObject({
      score: 6,
      tagrading_score: 0,
      components: [],
    });
  });

  it('is never Unsubmitted for Checkpoints and Numeric gradeables, which are graded by TAs only', () => {
    const checkpoints = gradeable('lab1', { type: 'Checkpoints' });
    expect(gradeableEntry(checkpoints, undefined, 'UTC')).toMatchObject({ status: 'Good', score: 0, tagrading_score: 0 });
    expect(gradeableEntry(checkpoints, undefined, 'UTC')).not.toHaveProperty('late_days_remaining');
    const taOnly = { term: 'f26', course: 'cs1', gradeableId: 'lab1', ownerId: 'amy', highestVersion: 0, activeVersion: 0, versions: [] };
    expect(gradeableEntry(checkpoints, { ...taOnly, taGrade: taGrade([], 3) }, 'UTC')).toMatchObject({
      gradeable_type: 'Checkpoints',
      status: 'Good',
      score: 3,
      tagrading_score: 3,
    });
  });

  it('has no release date when the gradeable has none', () => {
    expect(gradeableEntry(gradeable('hw1', {}, { grade_released_date: undefined }), undefined, 'UTC').grade_released_date).toBeNull();
  });
});

describe('the gradeables a summary lists', () => {
  const now = new Date('2026-11-01T12:00:00.000Z');

  it('are the released ones (at or before now, or without a release date)', () => {
    const list = [
      gradeable('released', {}, { grade_released_date: '2026-11-01T12:00:00.000Z' }),
      gradeable('later', {}, { grade_released_date: '2026-11-01T12:00:00.001Z' }),
      gradeable('undated', {}, { grade_released_date: undefined }),
    ];
    expect(releasedGradeables(list, now).map((g) => g.id)).toEqual(['released', 'undated']);
  });

  it('in due-date order (the grade due date where there is no submission due date), then by id', () => {
    const list = [
      gradeable('c', {}, { submission_due_date: '2026-10-03T00:00:00.000Z' }),
      gradeable('b', {}, { submission_due_date: '2026-10-01T00:00:00.000Z' }),
      gradeable('lab', { type: 'Numeric' }, { grade_due_date: '2026-10-02T00:00:00.000Z' }),
      gradeable('a', {}, { submission_due_date: '2026-10-03T00:00:00.000Z' }),
    ];
    expect(releasedGradeables(list, now).map((g) => g.id)).toEqual(['b', 'lab', 'a', 'c']);
  });
});

describe('a user’s summary', () => {
  it('names the user and sections, then one list per syllabus bucket, capitalized as the reference does', () => {
    expect(bucketKey('homework')).toBe('Homework');
    expect(bucketKey('problem-set')).toBe('Problem-set');
    expect(bucketKey('none (for practice only)')).toBe('None (for practice only)');

    const person = amy;
    const enrollment = enrollmentOf('amy');
    const gradeables = [gradeable('hw1'), gradeable('lab1', { syllabus_bucket: 'lab' }), gradeable('hw2')];
    const asked: string[] = [];
    const summary = userSummary(
      person,
      enrollment,
      gradeables,
      (gradeableId, userId) => {
        asked.push(`${gradeableId}/${userId}`);
        return gradeableId === 'hw1' ? submission(0, 9) : undefined;
      },
      { timeZone: 'UTC', generatedAt: '2026-11-02T05:00:00.000Z' },
    );
    expect(asked).toEqual(['hw1/amy', 'lab1/amy', 'hw2/amy']);
    expect(Object.keys(summary)).toEqual([
      'user_id',
      'legal_first_name',
      'preferred_first_name',
      'legal_last_name',
      'preferred_last_name',
      'registration_section',
      'rotating_section',
      'default_allowed_late_days',
      'late_days_remaining',
      'last_update',
      'Homework',
      'Lab',
    ]);
    expect(summary).toMatchObject({
      user_id: 'amy',
      legal_first_name: 'Amy',
      legal_last_name: 'Adams',
      registration_section: '1',
      rotating_section: null,
      default_allowed_late_days: 0,
      late_days_remaining: 0,
      last_update: '2026-11-02T05:00:00.000Z',
      Homework: [
        { id: 'hw1', status: 'Good', score: 9 },
        { id: 'hw2', status: 'Unsubmitted', score: 0 },
      ],
      Lab: [{ id: 'lab1', status: 'Unsubmitted' }],
    });
  });
});

describe('late days across a user’s summary (Rainbow Grades’ rules)', () => {
  const person = amy;
  const enrollment = enrollmentOf('amy');
  const due = (day: number) => `2026-10-${String(day).padStart(2, '0')}T23:59:59.000Z`;
  const hw = (id: string, day: number, fields: Partial<GradeableDocument> = {}, released = '2026-11-01T12:00:00.000Z') =>
    gradeable(id, fields, { submission_due_date: due(day), late_days: 3, grade_released_date: released });
  const hw1 = hw('hw1', 1);
  // Not released yet, but due before hw3: its late days count.
  const hw2 = hw('hw2', 10, {}, '2026-12-01T00:00:00.000Z');
  const hw3 = hw('hw3', 20);
  const hw4 = hw('hw4', 25);
  const lab = gradeable('lab1', { type: 'Checkpoints', syllabus_bucket: 'lab' }, { grade_released_date: '2026-11-01T12:00:00.000Z' });
  const late: Record<string, number> = { hw1: 2, hw2: 1, hw3: 2, hw4: 1 };
  const submissionOf = (gradeableId: string) => {
    const days = late[gradeableId];
    return days === undefined ? undefined : submission(days, 10);
  };
  const summaryWith = (defaultBudget: number, student: StudentLateDays | undefined) =>
    userSummary(person, enrollment, releasedGradeables([hw1, hw2, hw3, hw4, lab], new Date('2026-11-02T00:00:00.000Z')), submissionOf, {
      timeZone: 'UTC',
      generatedAt: '2026-11-02T05:00:00.000Z',
      lateDays: { defaultBudget, student, gradeables: [hw4, hw3, hw2, hw1, lab] },
    });

  it('charges the course budget in due-date order, unreleased gradeables included', () => {
    const summary = summaryWith(4, undefined);
    expect(summary).toMatchObject({ default_allowed_late_days: 4, late_days_remaining: 0 });
    expect((summary.Homework as { id: string }[]).map((entry) => entry.id)).toEqual(['hw1', 'hw3', 'hw4']);
    expect(summary.Homework).toMatchObject([
      { id: 'hw1', status: 'Late', score: 10, days_after_deadline: 2, days_charged: 2, late_days_remaining: 2 },
      // hw2 took one more day: one left, too few for hw3's two.
      { id: 'hw3', status: 'Bad', score: 0, days_after_deadline: 2, days_charged: 0, late_days_remaining: 1 },
      { id: 'hw4', status: 'Late', score: 10, days_after_deadline: 1, days_charged: 1, late_days_remaining: 0 },
    ]);
    expect(summary.Lab).toMatchObject([{ id: 'lab1', status: 'Good' }]);
  });

  it('follows a grant from its date on and an extension on one gradeable', () => {
    const student: StudentLateDays = {
      userId: 'amy',
      // From 15 October: 6 days in all (3 used by then).
      grants: [{ since: '2026-10-15T00:00:00.000Z', allowed: 6 }],
      extensions: { hw4: { days: 1, reason: 'illness' } },
    };
    const summary = summaryWith(4, student);
    expect(summary.Homework).toMatchObject([
      { id: 'hw1', status: 'Late', days_charged: 2, late_days_remaining: 2 },
      { id: 'hw3', status: 'Late', score: 10, days_charged: 2, late_days_remaining: 1 },
      {
        id: 'hw4',
        status: 'Good',
        score: 10,
        late_day_exceptions: 1,
        reason_for_exception: 'illness',
        days_charged: 0,
        late_days_remaining: 1,
      },
    ]);
    expect(summary.late_days_remaining).toBe(1);
  });

  it('counts no grant that starts after the generation in the budget left now', () => {
    // From December on, 10 days in all (5 used): not yet.
    const summary = summaryWith(4, { userId: 'amy', grants: [{ since: '2026-12-01T00:00:00.000Z', allowed: 10 }], extensions: {} });
    expect(summary.late_days_remaining).toBe(0);
  });
});
