import { describe, expect, it } from 'vitest';
import type { Enrollment } from '#shared/courses/course.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import {
  compareRows,
  gradebookCsv,
  gradebookRow,
  pageOf,
  readPage,
  visibleStudents,
  type GradebookRow,
} from '#shared/gradebook/gradebook.ts';
import { chargeGradeable, lateDayGradeable } from '#shared/submissions/late-days.ts';
import type { Submission } from '#shared/submissions/submission.ts';
import { rubricComponent } from '../support/rubric.ts';
import { enrollment as member } from '../support/enrollments.ts';
import { testCase } from '../support/submissions.ts';

const enrollment = (userId: string, group: 1 | 2 | 3 | 4, section: string | null, grading: string[] = []): Enrollment =>
  member(userId, { term: 't', course: 'c', group, registrationSection: section, gradingSections: grading });
const gradeable = {
  id: 'hw',
  title: 'HW',
  type: 'Electronic File',
  ta_grading: true,
  dates: { late_days: 2 },
  rubric: [rubricComponent('A')],
} as unknown as GradeableDocument;
const row = (section: string, user: string) => ({ registration_section: section, user_id: user }) as GradebookRow;

describe('the gradebook', () => {
  it('orders by section (numerically when both are numbers), then user id', () => {
    const rows = [row('10', 'a'), row('2', 'b'), row('2', 'a'), row('B', 'z'), row('A', 'y')];
    expect([...rows].sort(compareRows).map((r) => `${r.registration_section}/${r.user_id}`)).toEqual(['2/a', '2/b', '10/a', 'A/y', 'B/z']);

    // Sections that are numbers first (leading zeros tie-broken by the characters), then the others by character.
    const mixed = ['a', '_b', 'A', '1A', '-x', '10', '9', '09', 'AB', '0'].map((section) => row(section, 'u'));
    expect([...mixed].sort(compareRows).map((r) => r.registration_section)).toEqual([
      '0',
      '09',
      '9',
      '10',
      '-x',
      '1A',
      'A',
      'AB',
      '_b',
      'a',
    ]);
    // A section's students come before the next section's, whatever their ids.
    expect([row('A', 'zz'), row('AB', 'a')].sort(compareRows).map((r) => r.registration_section)).toEqual(['A', 'AB']);
  });

  it('shows limited access graders their sections only, and students only', () => {
    const all = [enrollment('s1', 4, '1'), enrollment('s2', 4, '2'), enrollment('dropped', 4, null), enrollment('ta', 2, null, ['1'])];
    expect(visibleStudents(enrollment('m', 3, null, ['1']), all).map((e) => e.userId)).toEqual(['s1']);
    expect(visibleStudents(enrollment('i', 1, null), all).map((e) => e.userId)).toEqual(['s1', 's2']);
  });

  it('pages with a cursor that resumes after the last row, whatever was added before it', () => {
    const rows = ['a', 'b', 'c', 'd', 'e'].map((user) => row('1', user));
    const first = pageOf(rows, readPage({ limit: '2' }));
    expect(first.rows.map((r) => r.user_id)).toEqual(['a', 'b']);
    const second = pageOf([row('1', 'aa'), ...rows], readPage({ limit: '2', cursor: first.next_cursor! }));
    expect(second.rows.map((r) => r.user_id)).toEqual(['c', 'd']);
    const last = pageOf(rows, readPage({ limit: '2', cursor: second.next_cursor! }));
    expect(last).toEqual({ rows: [rows[4]], next_cursor: null });
    expect(pageOf(rows, readPage({})).next_cursor).toBeNull();
    for (const limit of ['0', '501', 'x', '-1', '1.5'])
      expect(() => readPage({ limit })).toThrow('The limit must be a whole number from 1 to 500.');
    for (const cursor of ['', '!!', 'bm90IGpzb24', Buffer.from('[1,2]').toString('base64url'), 'a'.repeat(401)]) {
      expect(() => readPage({ cursor })).toThrow('The cursor is not one this gradebook gave out.');
    }
  });

  it('reports state, scores, late days, status and the last grader of a row', () => {
    const submission: Submission = {
      term: 't',
      course: 'c',
      gradeableId: 'hw',
      ownerId: 's1',
      highestVersion: 2,
      activeVersion: 2,
      versions: [
        { version: 1, submittedAt: '', submittedBy: 's1', daysLate: 0, ticket: 1, state: 'graded', points: 1 },
        { version: 2, submittedAt: '', submittedBy: 's1', daysLate: 1, ticket: 2, state: 'graded', points: 3 },
      ],
      activeResults: {
        version: 2,
        testCases: [testCase(3, { points_available: 5 })],
      },
      taGrade: {
        revision: 2,
        components: { 0: { mark_ids: [], custom_points: 4, custom_message: '', grader_id: 'ta', graded_at: '2026-01-02T00:00:00.000Z' } },
      },
    };
    // One day late, charged against a budget of 2 (late-days.ts): Late.
    const dated = { ...gradeable, dates: { ...gradeable.dates, submission_due_date: '2026-01-01T00:00:00.000Z' } };
    const charge = chargeGradeable(lateDayGradeable(dated, submission, undefined), 2);
    expect(gradebookRow(dated, enrollment('s1', 4, '1'), submission, undefined, charge)).toEqual({
      user_id: 's1',
      registration_section: '1',
      team_id: null,
      has_submission: true,
      highest_version: 2,
      active_version: 2,
      grading_state: 'graded',
      autograding_score: 3,
      tagrading_score: 4,
      ta_grading_complete: true,
      total_score: 7,
      days_late: 1,
      status: 'Late',
      grader_id: 'ta',
    });
    expect(gradebookRow(gradeable, enrollment('s2', 4, '2'), undefined, 'team1')).toMatchObject({
      team_id: 'team1',
      has_submission: false,
      active_version: 0,
      status: 'Unsubmitted',
      total_score: 0,
      grader_id: null,
    });
    // Without a budget the same submission is Bad and scores 0.
    expect(gradebookRow(dated, enrollment('s1', 4, '1'), submission, undefined)).toMatchObject({ status: 'Bad', total_score: 0 });
  });

  it('writes CSV with a header row, quoting and no spreadsheet formulas', () => {
    const csv = gradebookCsv([
      { ...row('1', 'b'), grader_id: '=cmd()' },
      { ...row('1', 'a"x'), team_id: 'a,b' },
    ] as GradebookRow[]);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(
      'user_id,registration_section,team_id,has_submission,highest_version,active_version,grading_state,autograding_score,tagrading_score,ta_grading_complete,total_score,days_late,status,grader_id',
    );
    expect(lines[1]!.startsWith('"a""x",1,"a,b"')).toBe(true);
    expect(lines[2]!.endsWith(",'=cmd()")).toBe(true);
  });
});
