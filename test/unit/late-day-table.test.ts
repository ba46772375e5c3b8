import { describe, expect, it } from 'vitest';
import type { Course, Enrollment } from '#shared/courses/course.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { activeDaysLateOf, grantStart, lateDayTable } from '#shared/submissions/late-day-table.ts';
import { parseInput } from '#functions/definitions.ts';
import { enrollment } from '../support/enrollments.ts';

// A student's late-day table: the reference's late-day view, charged as the summaries charge.

const course = { term: 'f26', course: 'cs1', timeZone: 'America/New_York', defaultStudentLateDays: 3 } as Course;
const student: Enrollment = enrollment('amy');
const gradeable = (id: string, due: string, open = '2026-09-01T00:00:00.000Z', fields: Partial<GradeableDocument> = {}) =>
  ({
    id,
    title: id.toUpperCase(),
    type: 'Electronic File',
    ...fields,
    dates: { submission_open_date: open, submission_due_date: due, late_days: 2 },
  }) as GradeableDocument;

describe('a student’s late-day table', () => {
  const now = new Date('2026-10-20T12:00:00.000Z');
  const documents = [
    gradeable('hw2', '2026-10-10T03:59:59.000Z'),
    gradeable('hw1', '2026-10-01T03:59:59.000Z'),
    // Not open to students yet, but charged (a grader submitted for the student).
    gradeable('hw0', '2026-10-05T03:59:59.000Z', '2026-12-01T00:00:00.000Z'),
    gradeable('lab', '2026-10-03T03:59:59.000Z', undefined, { type: 'Checkpoints' }),
    gradeable('hw3', '2026-10-30T03:59:59.000Z'),
  ];
  const late: Record<string, number> = { hw1: 1, hw0: 1, hw2: 2 };

  it('charges every Electronic File gradeable, shows those the student sees, in due-date order, dates in the course’s zone', () => {
    const table = lateDayTable({
      course,
      student,
      lateDays: {
        userId: 'amy',
        grants: [{ since: '2026-10-08T04:00:00.000Z', allowed: 5 }],
        extensions: { hw3: { days: 1, reason: 'illness' } },
      },
      documents,
      activeDaysLateOf: (id) => late[id],
      now,
    });
    expect(table).toEqual({
      user_id: 'amy',
      default_student_late_days: 3,
      grants: [{ since: '2026-10-08 00:00:00', allowed_late_days: 5 }],
      late_days_remaining: 1,
      gradeables: [
        {
          id: 'hw1',
          title: 'HW1',
          submission_due_date: '2026-09-30 23:59:59',
          allowed_late_days: 2,
          late_day_exceptions: 0,
          reason_for_exception: '',
          days_late: 1,
          days_charged: 1,
          status: 'Late',
          late_days_remaining: 2,
        },
        // hw0 took another day (1 left), then the grant: 5 in all, 2 used, 3 left.
        expect.objectContaining({ id: 'hw2', days_late: 2, days_charged: 2, status: 'Late', late_days_remaining: 1 }),
        expect.objectContaining({
          id: 'hw3',
          late_day_exceptions: 1,
          reason_for_exception: 'illness',
          days_late: null,
          days_charged: null,
          status: 'Unsubmitted',
          late_days_remaining: 1,
        }),
      ],
    });
  });
});

describe('a student’s active days late, from their own submissions and their teams’ copies', () => {
  const team = { team_gradeable: { team_size_max: 2, inherit_from: '' } } as Partial<GradeableDocument>;
  const documents = [
    gradeable('solo', '2026-10-01T03:59:59.000Z'),
    gradeable('pair', '2026-10-01T03:59:59.000Z', undefined, team),
    gradeable('cancelled', '2026-10-01T03:59:59.000Z'),
    gradeable('untouched', '2026-10-01T03:59:59.000Z', undefined, team),
  ];
  const entry = (gradeableId: string, activeVersion: number, daysLate: number | undefined) => ({ gradeableId, activeVersion, daysLate });

  it('takes individual gradeables from the student’s submissions and team gradeables from the team copies', () => {
    const days = activeDaysLateOf(
      documents,
      // A submission of the student's own on `pair` (made before it became a team gradeable) does not count.
      [entry('solo', 2, 1), entry('cancelled', 0, undefined), entry('pair', 1, 5)],
      [entry('pair', 3, 2), entry('untouched', 0, undefined), entry('solo', 1, 7)],
    );
    expect(Object.fromEntries(days)).toEqual({ solo: 1, pair: 2, cancelled: undefined, untouched: undefined });
  });
});

describe('when a grant starts', () => {
  const now = new Date('2026-10-20T12:00:00.000Z');

  it('is a date’s midnight in the course’s time zone, a local time, an ISO 8601 time, or now', () => {
    expect(grantStart('2026-10-08', 'America/New_York', now)).toBe('2026-10-08T04:00:00.000Z');
    expect(grantStart('2026-10-08 12:30:00', 'America/New_York', now)).toBe('2026-10-08T16:30:00.000Z');
    expect(grantStart('2026-10-08T12:30:00Z', 'America/New_York', now)).toBe('2026-10-08T12:30:00.000Z');
    expect(grantStart(undefined, 'America/New_York', now)).toBe(now.toISOString());
  });

  it('refuses anything else', () => {
    for (const since of ['2026-13-01', 'yesterday', '2026-10-08T12:30:00', '']) {
      expect(() => grantStart(since, 'UTC', now)).toThrow(/since must be a date/);
    }
  });
});

describe('a count of days a route requires', () => {
  const refusal = (name: Parameters<typeof parseInput>[0], body: Record<string, unknown>) => {
    try {
      return parseInput(name, { body }).body;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('is refused when left out (or empty), naming the field', () => {
    expect(refusal('set-extension', { late_days: 0 })).toEqual({ late_days: 0 });
    expect(refusal('set-extension', { late_days: '12' })).toEqual({ late_days: 12 });
    expect(refusal('set-extension', { reason_for_exception: 'ill' })).toBe('The field late_days is required.');
    expect(refusal('grant-late-days', { since: '2026-10-01' })).toBe('The field allowed_late_days is required.');
    expect(refusal('set-course-late-days', { default_student_late_days: '' })).toBe('The field default_student_late_days is required.');
    // A value not of its kind is named before a missing one.
    expect(refusal('set-extension', { late_days: -1 })).toMatch(/^The field late_days must be a whole number/);
  });
});
