import { describe, expect, it } from 'vitest';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { courseGradebookRow, maxPoints, shownGradeables, type CourseRowSources } from '#shared/gradebook/course-gradebook.ts';
import { csvCell, csvLine } from '#shared/gradebook/csv.ts';
import { chooseGradeables, exportHeader, exportLine } from '#shared/gradebook/exports.ts';
import { submissionRecord, testCase } from '../support/submissions.ts';
import { rubricComponent } from '../support/rubric.ts';

const day = 86_400_000;
const now = new Date('2026-10-01T12:00:00Z');
const at = (days: number) => new Date(now.getTime() + days * day).toISOString();
const electronic = (id: string, due: number, fields: Partial<GradeableDocument> = {}) =>
  ({
    id,
    title: id.toUpperCase(),
    type: 'Electronic File',
    rubric: [],
    dates: { ta_view_start_date: at(-30), submission_open_date: at(-29), submission_due_date: at(due), late_days: 2 },
    ...fields,
  }) as unknown as GradeableDocument;
const graded = (gradeableId: string, points: number, daysLate: number) =>
  submissionRecord([{ version: 1, submittedAt: at(-5), submittedBy: 'amy', daysLate, ticket: 1, state: 'graded', points }], {
    gradeableId,
    activeResults: { version: 1, testCases: [testCase(points)] },
  });

describe("the course's gradebook", () => {
  it('counts every test case but extra credit, hidden ones too, and the rubric in the most points', () => {
    const document = electronic('hw', -1, {
      autograding: {
        test_cases: [
          { points_available: 5, is_extra_credit: false, is_hidden: false },
          { points_available: 3, is_extra_credit: false, is_hidden: true },
          { points_available: 2, is_extra_credit: true, is_hidden: false },
        ],
      } as never,
      rubric: [rubricComponent('Style', { max_value: 4, upper_clamp: 4 })],
    });
    expect(maxPoints(document)).toBe(12);
    expect(maxPoints(electronic('none', -1))).toBe(0);
  });

  it("shows staff the gradeables from their TA view date, in the course's order by due date", () => {
    const later = electronic('b', -1);
    const earlier = electronic('a2', -3);
    const hidden = electronic('future', 5, { dates: { ta_view_start_date: at(1), submission_due_date: at(5) } } as never);
    expect(shownGradeables([later, hidden, earlier], now).map((document) => document.id)).toEqual(['a2', 'b']);
  });

  it('charges late days over every Electronic File gradeable, the unshown ones too, and scores a gradeable too late 0', () => {
    const first = electronic('hw1', -10);
    const second = electronic('hw2', -5);
    const unshown = electronic('hw0', -20, { dates: { ...electronic('x', -20).dates, ta_view_start_date: at(1) } } as never);
    const submissions: Record<string, ReturnType<typeof graded>> = {
      hw0: graded('hw0', 4, 2),
      hw1: graded('hw1', 6, 1),
      hw2: graded('hw2', 9, 2),
    };
    const sources: CourseRowSources = {
      submissionOf: (id) => submissions[id],
      teamOf: () => undefined,
      lateDaysOf: () => undefined,
    };
    const person = { userId: 'amy', registrationSection: '1', rotatingSection: '3', givenName: 'Amy', familyName: 'Ames' };
    const row = courseGradebookRow({ defaultStudentLateDays: 3 }, [unshown, first, second], [first, second], person, sources, now);
    expect(row).toEqual({
      user_id: 'amy',
      first_name: 'Amy',
      last_name: 'Ames',
      registration_section: '1',
      rotating_section: '3',
      // hw0's 2 and hw1's 1 spend the budget of 3: hw2, 2 days late, is Bad.
      late_days_used: 3,
      late_days_remaining: 0,
      gradeables: [
        { gradeable_id: 'hw1', score: 6, max: 0, days_late: 1, status: 'graded' },
        { gradeable_id: 'hw2', score: 0, max: 0, days_late: 2, status: 'graded' },
      ],
    });
    const nothing = courseGradebookRow({}, [first], [first], person, { ...sources, submissionOf: () => undefined }, now);
    expect(nothing.gradeables).toEqual([{ gradeable_id: 'hw1', score: 0, max: 0, days_late: 0, status: 'no_submission' }]);
  });

  it('takes the gradeables an export names once each, in their order, each one the caller sees', () => {
    const documents = [electronic('a', -1), electronic('b', -2), electronic('later', 9, { dates: { ta_view_start_date: at(1) } } as never)];
    const grader = { group: 2 as const };
    expect(chooseGradeables(undefined, documents, grader, now)).toBeUndefined();
    expect(chooseGradeables(['b', 'a', 'b'], documents, grader, now)).toEqual(['b', 'a']);
    expect(() => chooseGradeables(['a', 'zz'], documents, grader, now)).toThrow('No gradeable zz in this course to export.');
    expect(() => chooseGradeables(['later'], documents, grader, now)).toThrow('No gradeable later in this course to export.');
    expect(chooseGradeables(['later'], documents, { group: 1 }, now)).toEqual(['later']);
  });
});

describe('the CSV writer', () => {
  it('neutralises text a spreadsheet would run, and quotes per RFC 4180', () => {
    for (const formula of ['=1+1', '+1', '-1+1', '@SUM(A1)', '\tx', '\rx'])
      expect(csvCell(formula).startsWith("'") || csvCell(formula).startsWith(`"'`)).toBe(true);
    expect(csvCell('=A1,"B"')).toBe(`"'=A1,""B"""`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    // Numbers are numbers, negative ones too; safe text is left alone.
    expect(csvCell(-2.5)).toBe('-2.5');
    expect(csvCell('Ada Lovelace')).toBe('Ada Lovelace');
    expect(csvCell(null)).toBe('');
    expect(csvLine(['a', 1, null, 'b\nc'])).toBe('a,1,,"b\nc"\r\n');
  });

  it("writes an export's header and a student's record in the same column order", () => {
    expect(exportHeader(['hw1'])).toBe(
      'user_id,first_name,last_name,registration_section,rotating_section,late_days_used,late_days_remaining,hw1 score,hw1 max,hw1 days_late,hw1 status\r\n',
    );
    const line = exportLine({
      user_id: 'amy',
      first_name: '=cmd',
      last_name: 'A, B',
      registration_section: '1',
      rotating_section: null,
      late_days_used: 1,
      late_days_remaining: 2,
      gradeables: [{ gradeable_id: 'hw1', score: 4.5, max: 10, days_late: 1, status: 'graded' }],
    });
    expect(line).toBe(`amy,'=cmd,"A, B",1,,1,2,4.5,10,1,graded\r\n`);
  });
});
