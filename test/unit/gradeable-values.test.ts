import { describe, expect, it } from 'vitest';
import { QUEUE_SHARDS, type QueueCounters } from '#shared/data/jobs.ts';
import type { GradeableDocument, RubricComponent } from '#shared/gradeables/gradeable.ts';
import { shardOf, ticketOf } from '#shared/queue/tickets.ts';
import {
  attempts,
  hiddenTestCasesFor,
  gradeableValues,
  HIDDEN_OUTCOME,
  taValues,
  type Submission,
  type TestCaseResult,
  type VersionState,
  type VersionSummary,
} from '#shared/submissions/submission.ts';
import { mark, rubricComponent } from '../support/rubric.ts';
import { submissionRecord } from '../support/submissions.ts';

// `values` and `attempts`: what students and their tools poll after submitting.

const version = (number: number, state: VersionState, fields: Partial<VersionSummary> = {}): VersionSummary => ({
  version: number,
  submittedAt: `2026-10-0${number}T12:00:00.000Z`,
  submittedBy: 'amy',
  daysLate: 0,
  ticket: 100 + number,
  state,
  ...fields,
});
const test = (name: string, points_received: number, points_available: number, fields: Partial<TestCaseResult> = {}): TestCaseResult => ({
  name,
  details: `${name} details`,
  is_extra_credit: false,
  points_available,
  has_extra_results: false,
  points_received,
  testcase_message: '',
  autochecks: [],
  hidden: false,
  ...fields,
});
const submission = (fields: Partial<Submission>): Submission => submissionRecord([version(1, 'graded')], fields);
const student = { hidden: 'left-out' } as const;
/** A first-lane ticket drawn `ms` after a fixed moment on counter `shard`. */
const ticketAt = (ms: number, shard: number) => ticketOf({ lane: 0, at: Date.UTC(2026, 9, 1) + ms, shard, salt: 0 });
/** Queue counters holding the given tickets, each on its own counter; the others empty. */
const queueOf = (tickets: readonly number[]): QueueCounters =>
  Array.from({ length: QUEUE_SHARDS }, (_, shard) => ({ shard, queued: tickets.filter((ticket) => shardOf(ticket) === shard) }));
const emptyQueue = queueOf([]);
const staff = { hidden: 'whole' } as const;

describe('values', () => {
  it('for no submission: nothing queued, graded or active', () => {
    expect(gradeableValues(undefined, emptyQueue, student)).toEqual({
      is_queued: false,
      queue_position: -1,
      is_grading: false,
      has_submission: false,
      autograding_complete: false,
      has_active_version: false,
      highest_version: 0,
      total_points: null,
      total_percent: null,
      commit: null,
      test_cases: [],
    });
  });

  it('for a queued version: its 1-based place among the queued tickets of every counter', () => {
    // Its ticket is counter 3's, drawn at 50 ms; counter 0 holds tickets of 10, 40 and 60 ms, counter 7 one of 50 ms (a higher counter).
    const own = ticketAt(50, 3);
    const queued = submission({ versions: [version(1, 'queued', { ticket: own })] });
    const queue = queueOf([ticketAt(10, 0), ticketAt(40, 0), ticketAt(60, 0), own, ticketAt(50, 7)]);
    expect(gradeableValues(queued, queue, student)).toMatchObject({
      is_queued: true,
      queue_position: 3, // counter 0's tickets of 10 and 40 ms are below it; 60 ms and counter 7's are above
      is_grading: false,
      autograding_complete: false,
      has_active_version: true,
      total_points: 0,
      total_percent: 0,
    });
    expect(gradeableValues(queued, queueOf([own, ticketAt(60, 0)]), student)).toMatchObject({ is_queued: true, queue_position: 1 });
  });

  it('for a version being graded: position 0', () => {
    const grading = submission({ versions: [version(1, 'grading')] });
    expect(gradeableValues(grading, emptyQueue, student)).toMatchObject({ is_queued: false, queue_position: 0, is_grading: true });
  });

  it('for a graded version: its test cases and points, the percent of the non-extra-credit points', () => {
    const graded = submission({
      activeResults: { version: 1, testCases: [test('a', 3, 4), test('b', 4, 6), test('bonus', 2, 2, { is_extra_credit: true })] },
    });
    const values = gradeableValues(graded, emptyQueue, student);
    expect(values).toMatchObject({
      is_queued: false,
      queue_position: -1,
      is_grading: false,
      has_submission: true,
      autograding_complete: true,
      has_active_version: true,
      highest_version: 1,
      total_points: 9,
      total_percent: 0.9,
    });
    expect(values.test_cases.map((t) => t.name)).toEqual(['a', 'b', 'bonus']);
  });

  it('may pass 100% with extra credit, and never divides by zero', () => {
    const extra = submission({
      activeResults: { version: 1, testCases: [test('a', 4, 4), test('bonus', 2, 2, { is_extra_credit: true })] },
    });
    expect(gradeableValues(extra, emptyQueue, student)).toMatchObject({ total_points: 6, total_percent: 1.5 });
    const onlyExtra = submission({ activeResults: { version: 1, testCases: [test('bonus', 2, 2, { is_extra_credit: true })] } });
    expect(gradeableValues(onlyExtra, emptyQueue, student)).toMatchObject({ total_points: 2, total_percent: 0 });
  });

  it('rounds points and percent to four decimals', () => {
    const thirds = submission({ activeResults: { version: 1, testCases: [test('a', 1, 3), test('b', 0.1, 0), test('c', 0.2, 0)] } });
    expect(gradeableValues(thirds, emptyQueue, student)).toMatchObject({ total_points: 1.3, total_percent: 0.4333 });
  });

  it('leaves hidden test cases, and their points, out of what students see; staff see them', () => {
    const withHidden = submission({
      activeResults: { version: 1, testCases: [test('open', 2, 2), test('secret', 3, 8, { hidden: true })] },
    });
    const forStudent = gradeableValues(withHidden, emptyQueue, student);
    expect(forStudent).toMatchObject({ total_points: 2, total_percent: 1 });
    expect(forStudent.test_cases.map((t) => t.name)).toEqual(['open']);
    const forStaff = gradeableValues(withHidden, emptyQueue, staff);
    expect(forStaff).toMatchObject({ total_points: 5, total_percent: 0.5 });
    expect(forStaff.test_cases.map((t) => t.name)).toEqual(['open', 'secret']);
  });

  it('shows graders who are not instructors a hidden test case by its score alone, never its messages or expected output', () => {
    const check = { description: 'Standard output', messages: [{ message: 'Wrong output', type: 'failure' }], diff_viewer: null };
    const failing = { ...check, expected: 'Hello, World!\n', actual: 'Hi\n' };
    const withHidden = submission({
      activeResults: {
        version: 1,
        testCases: [
          test('open', 2, 2, { testcase_message: 'Passed', autochecks: [{ ...check, expected: null, actual: null }] }),
          test('secret', 0, 8, { hidden: true, testcase_message: 'Output does not contain "Hello, World"', autochecks: [failing] }),
        ],
      },
    });
    const forGrader = gradeableValues(withHidden, emptyQueue, { hidden: 'score-only' });
    expect(forGrader).toMatchObject({ total_points: 2, total_percent: 0.2 });
    expect(forGrader.test_cases[0]).toMatchObject({
      name: 'open',
      testcase_message: 'Passed',
      autochecks: [{ description: 'Standard output' }],
    });
    expect(forGrader.test_cases[1]).toEqual({
      name: 'secret',
      details: 'secret details',
      is_extra_credit: false,
      points_available: 8,
      has_extra_results: false,
      points_received: 0,
      testcase_message: HIDDEN_OUTCOME,
      autochecks: [],
    });
    expect(JSON.stringify(forGrader)).not.toContain('Hello');
    expect(gradeableValues(withHidden, emptyQueue, staff).test_cases[1]?.autochecks[0]).toMatchObject({ expected: 'Hello, World!\n' });
  });

  it('never shows another version’s results as the active version’s', () => {
    const changed = submission({
      highestVersion: 2,
      activeVersion: 2,
      versions: [version(1, 'graded'), version(2, 'queued', { ticket: 5 })],
      activeResults: { version: 1, testCases: [test('a', 4, 4)] },
    });
    expect(gradeableValues(changed, emptyQueue, student)).toMatchObject({
      queue_position: 1,
      autograding_complete: false,
      highest_version: 2,
      total_points: 0,
      total_percent: 0,
      test_cases: [],
    });
  });

  it("shows the active version's commit, the one it was submitted with", () => {
    const commit = 'a'.repeat(40);
    const bound = submission({ highestVersion: 2, activeVersion: 1, versions: [version(1, 'queued', { commit }), version(2, 'queued')] });
    expect(gradeableValues(bound, emptyQueue, student).commit).toBe(commit);
    expect(gradeableValues({ ...bound, activeVersion: 2 }, emptyQueue, student).commit).toBeNull();
  });

  it('after a cancelled submission (active version 0): submitted, but nothing active', () => {
    const cancelled = submission({ highestVersion: 2, activeVersion: 0, versions: [version(1, 'graded'), version(2, 'graded')] });
    expect(gradeableValues(cancelled, emptyQueue, student)).toEqual({
      is_queued: false,
      queue_position: -1,
      is_grading: false,
      has_submission: true,
      autograding_complete: false,
      has_active_version: false,
      highest_version: 2,
      total_points: null,
      total_percent: null,
      commit: null,
      test_cases: [],
    });
  });

  it('shows each test case with the reference’s fields in the reference’s order, without the hidden flag', () => {
    const check = { actual: 'x', extra: 'dropped', description: 'stdout', expected: 'y', messages: ['m'], diff_viewer: null };
    const graded = submission({ activeResults: { version: 1, testCases: [test('a', 1, 1, { autochecks: [check] })] } });
    const shown = gradeableValues(graded, emptyQueue, staff).test_cases;
    expect(shown).toHaveLength(1);
    expect(Object.keys(shown[0] ?? {})).toEqual([
      'name',
      'details',
      'is_extra_credit',
      'points_available',
      'has_extra_results',
      'points_received',
      'testcase_message',
      'autochecks',
    ]);
    expect(shown[0]?.autochecks).toEqual([{ description: 'stdout', messages: ['m'], diff_viewer: null, expected: 'y', actual: 'x' }]);
    expect(Object.keys(shown[0]?.autochecks[0] ?? {})).toEqual(['description', 'messages', 'diff_viewer', 'expected', 'actual']);
  });
});

describe('attempts', () => {
  it('lists every version newest first, marking the active one, with the commit each was graded on', () => {
    const history = submission({
      highestVersion: 3,
      activeVersion: 2,
      versions: [
        version(1, 'failed', { message: 'could not clone' }),
        version(2, 'graded', { points: 7.5, daysLate: 1, commit: 'c'.repeat(40) }),
        version(3, 'queued', { submittedBy: 'prof' }),
      ],
    });
    const due = { dates: { has_due_date: true } } as Pick<GradeableDocument, 'dates'>;
    expect(attempts(history, due, 'left-out')).toEqual([
      {
        version: 3,
        submitted_at: '2026-10-03T12:00:00.000Z',
        submitted_by: 'prof',
        days_late: 0,
        active: false,
        grading_state: 'queued',
        points: null,
        message: null,
        commit: null,
      },
      {
        version: 2,
        submitted_at: '2026-10-02T12:00:00.000Z',
        submitted_by: 'amy',
        days_late: 1,
        active: true,
        grading_state: 'graded',
        points: 7.5,
        message: null,
        commit: 'c'.repeat(40),
      },
      {
        version: 1,
        submitted_at: '2026-10-01T12:00:00.000Z',
        submitted_by: 'amy',
        days_late: 0,
        active: false,
        grading_state: 'failed',
        points: null,
        message: 'could not clone',
        commit: null,
      },
    ]);
    expect(attempts(undefined, due, 'left-out')).toEqual([]);
    // Without a due date no version is late, whatever was counted when it was submitted.
    const undated = { dates: { has_due_date: false } } as Pick<GradeableDocument, 'dates'>;
    expect(attempts(history, undated, 'left-out').map((attempt) => attempt.days_late)).toEqual([0, 0, 0]);
  });
});

describe('hidden test cases in points', () => {
  const released = (date: string) => ({ dates: { grade_released_date: date } }) as Pick<GradeableDocument, 'dates'>;
  const now = new Date('2026-11-15T00:00:00.000Z');

  it('are whole for instructors, a score for graders, and for students left out until grades are released, then a score', () => {
    const before = released('2026-12-01T00:00:00.000Z');
    const after = released('2026-11-01T00:00:00.000Z');
    expect(hiddenTestCasesFor({ readsHidden: true, staff: true }, before, now)).toBe('whole');
    expect(hiddenTestCasesFor({ readsHidden: false, staff: true }, before, now)).toBe('score-only');
    expect(hiddenTestCasesFor({ readsHidden: false, staff: false }, before, now)).toBe('left-out');
    expect(hiddenTestCasesFor({ readsHidden: false, staff: false }, after, now)).toBe('score-only');
    expect(hiddenTestCasesFor({ readsHidden: false, staff: false }, released('2026-11-15T00:00:00.000Z'), now)).toBe('score-only');
  });

  it("count in an attempt's points exactly where values count them", () => {
    const history = submission({
      highestVersion: 2,
      activeVersion: 2,
      versions: [version(1, 'graded', { points: 6 }), version(2, 'graded', { points: 3.5, hiddenPoints: 2.25 })],
    });
    const due = { dates: { has_due_date: true } } as Pick<GradeableDocument, 'dates'>;
    expect(attempts(history, due, 'left-out').map((attempt) => attempt.points)).toEqual([3.5, 6]);
    expect(attempts(history, due, 'score-only').map((attempt) => attempt.points)).toEqual([5.75, 6]);
    expect(attempts(history, due, 'whole').map((attempt) => attempt.points)).toEqual([5.75, 6]);
  });
});

describe('the TA grading part of values', () => {
  const component = (title: string, fields: Partial<RubricComponent> = {}): RubricComponent =>
    rubricComponent(title, { marks: [mark(2, 'shown'), mark(1, 'internal', false)], ...fields });
  const gradeable = (fields: Partial<GradeableDocument> = {}) =>
    ({
      id: 'hw1',
      title: 'HW 1',
      type: 'Electronic File',
      ta_grading: true,
      dates: { grade_released_date: '2026-11-01T00:00:00.000Z' },
      rubric: [component('Style'), component('Design', { max_value: 3, upper_clamp: 3 })],
      ...fields,
    }) as GradeableDocument;
  const graded = submission({
    taGrade: {
      revision: 1,
      components: {
        '0': { mark_ids: [0, 1], custom_points: 0, custom_message: 'tidy', grader_id: 'ta', graded_at: '2026-10-20T00:00:00.000Z' },
      },
    },
  });
  const before = new Date('2026-10-31T23:59:59.000Z');
  const after = new Date('2026-11-01T00:00:00.000Z');

  it('hides TA scores and comments from students until grades are released', () => {
    expect(taValues(gradeable(), graded, 4, { forStudent: true, now: before })).toEqual({
      ta_grading: true,
      ta_grades_released: false,
      ta_grading_complete: false,
      tagrading_score: null,
      tagrading_max: 8,
      total_score: 4,
      ta_components: [],
    });
  });

  it('shows students their released TA grade, without unpublished marks or who graded', () => {
    const values = taValues(gradeable(), graded, 4, { forStudent: true, now: after });
    expect(values).toMatchObject({ ta_grades_released: true, ta_grading_complete: false, tagrading_score: 3, total_score: 7 });
    expect(values.ta_components).toEqual([
      {
        component_id: 0,
        title: 'Style',
        score: 3,
        max_value: 5,
        comment: 'tidy',
        custom_points: 0,
        marks: [{ mark_id: 0, title: 'shown', points: 2 }],
        grader_id: null,
        graded_at: null,
      },
    ]);
  });

  it('shows staff the TA grade before release, with every mark and the grader', () => {
    const values = taValues(gradeable(), graded, null, { forStudent: false, now: before });
    expect(values).toMatchObject({ ta_grades_released: false, tagrading_score: 3, total_score: 3 });
    expect(values.ta_components[0]).toMatchObject({ marks: [{ mark_id: 0 }, { mark_id: 1 }], grader_id: 'ta' });
  });

  it('has no total before anything is graded, and no TA part for autograded-only gradeables', () => {
    expect(taValues(gradeable(), undefined, null, { forStudent: false, now: after })).toMatchObject({
      tagrading_score: null,
      total_score: null,
    });
    expect(taValues(gradeable({ ta_grading: false }), graded, 4, { forStudent: false, now: after })).toEqual({
      ta_grading: false,
      ta_grades_released: true,
      ta_grading_complete: false,
      tagrading_score: null,
      tagrading_max: 0,
      total_score: 4,
      ta_components: [],
    });
  });
});
