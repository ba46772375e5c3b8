import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { runAdminCommand } from '#infra/admin/commands.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#shared/data/client.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { snapshotTables, differences } from '../hardening/support.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { rubricComponent } from '../support/rubric.ts';
import { daysFromNow as iso } from '../support/dates.ts';
import { setLateDayBudget } from '../support/late-days.ts';
import { uploadGradeable } from '../support/gradeables.ts';
import { testCase } from '../support/submissions.ts';

/**
 * TA grading end to end over HTTP: graders grade a class's rubric, Numeric and
 * Checkpoints gradeables; values, the audit trail and the grade summaries reflect every score.
 */
let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
const H = (persona: keyof CourseWorld['tokens']) => ({ ...world.tokens[persona], Prefer: 'http-status' });

const component = (
  title: string,
  fields: { lower?: number; default?: number; max: number; upper?: number; marks?: { points: number; title: string; publish?: boolean }[] },
) =>
  rubricComponent(title, {
    lower_clamp: fields.lower ?? 0,
    default: fields.default ?? 0,
    max_value: fields.max,
    upper_clamp: fields.upper ?? fields.max,
    marks: (fields.marks ?? []).map((mark) => ({ publish: true, ...mark })),
  });

const dates = (releasedIn: number) => ({
  ta_view_start_date: iso(-20),
  submission_open_date: iso(-19),
  submission_due_date: iso(-10),
  team_lock_date: iso(-10),
  grade_start_date: iso(-9),
  grade_due_date: iso(Math.min(-8, releasedIn - 1)),
  grade_released_date: iso(releasedIn),
  grade_inquiry_start_date: iso(releasedIn),
  grade_inquiry_due_date: iso(releasedIn + 1),
  late_days: 2,
});
const gradingDates = (releasedIn: number) => ({
  ta_view_start_date: iso(-20),
  grade_start_date: iso(-9),
  grade_due_date: iso(Math.min(-8, releasedIn - 1)),
  grade_released_date: iso(releasedIn),
});

async function upload(document: Record<string, unknown>) {
  await uploadGradeable(api, world, document);
}

const grade = (gradeableId: string, userId: string, body: Record<string, unknown>, persona: keyof CourseWorld['tokens'] = 'ta') =>
  api.postJson(`${base()}/gradeable/${gradeableId}/grading/${userId}`, body, H(persona));

const rubric = [
  component('Style', {
    max: 5,
    marks: [
      { points: 2, title: 'Clear names' },
      { points: 3, title: 'Comments' },
      { points: -1, title: 'Private note', publish: false },
    ],
  }),
  component('Design', { lower: -2, default: 4, max: 4, marks: [{ points: -3, title: 'Globals' }] }),
];

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  // Late days are charged against each student's budget: two days for the course.
  await setLateDayBudget(api, world, 2);
  await upload({
    id: 'rubric_hw',
    title: 'Rubric homework',
    type: 'Electronic File',
    syllabus_bucket: 'homework',
    ta_grading: true,
    dates: dates(-1),
    rubric,
  });
  await upload({
    id: 'unreleased_hw',
    title: 'Unreleased',
    type: 'Electronic File',
    syllabus_bucket: 'homework',
    ta_grading: true,
    dates: dates(5),
    rubric,
  });
  await upload({ id: 'no_ta', title: 'Autograded only', type: 'Electronic File', syllabus_bucket: 'homework', dates: dates(-1), rubric });
  await upload({
    id: 'quiz',
    title: 'Quiz',
    type: 'Numeric',
    syllabus_bucket: 'quiz',
    dates: gradingDates(-1),
    rubric: [component('Q1', { max: 10 }), component('Q2', { max: 5 })],
  });
  await upload({
    id: 'lab',
    title: 'Lab',
    type: 'Checkpoints',
    syllabus_bucket: 'lab',
    dates: gradingDates(-1),
    rubric: [component('CP1', { max: 1 }), component('CP2', { max: 1 })],
  });
  // student's graded active version of rubric_hw: 3 autograding points, one day late.
  const { term, course } = world.course;
  const student = world.users.student.userId;
  await dynamo().send(
    new PutCommand({
      TableName: tableName(tables.submissions),
      Item: {
        gradeableKey: gradeableKey(term, course, 'rubric_hw'),
        ownerId: student,
        term,
        course,
        gradeableId: 'rubric_hw',
        highestVersion: 1,
        activeVersion: 1,
        versions: [{ version: 1, submittedAt: iso(-9.5), submittedBy: student, daysLate: 1, ticket: 1, state: 'graded', points: 3 }],
        activeResults: {
          version: 1,
          testCases: [testCase(3, { points_available: 5 })],
        },
      },
    }),
  );
}, 120_000);
afterAll(() => api.close());

describe('TA grading over HTTP', () => {
  it('records marks, custom points and comments within the clamps, with an audit trail', async () => {
    const student = world.users.student.userId;
    const first = await grade('rubric_hw', student, { component_id: 0, mark_ids: [0, 1, 2], custom_message: 'Tidy.' });
    expect(first.json.status, first.text).toBe('success');
    // 2 + 3 - 1 = 4
    expect(first.json.data).toMatchObject({ revision: 1, tagrading_score: 4, ta_grading_complete: false, tagrading_max: 9 });
    // Form encoding, a comma list of marks; 4 - 3 - 4 = -3, clamped to -2.
    const second = await api.postForm(
      `${base()}/gradeable/rubric_hw/grading/${student}`,
      { component_id: '1', mark_ids: '0', custom_points: '-4', custom_message: 'Globals everywhere', revision: '1' },
      H('instructor'),
    );
    expect(second.json.status, second.text).toBe('success');
    expect(second.json.data).toMatchObject({ revision: 2, tagrading_score: 2, ta_grading_complete: true });
    expect(second.json.data.components.map((c: { score: number }) => c.score)).toEqual([4, -2]);
    // Regrade component 0: only Comments now (3).
    const third = await grade('rubric_hw', student, { component_id: 0, mark_ids: [1], custom_message: 'Better names needed.' }, 'mentor');
    expect(third.json.status, third.text).toBe('success');
    expect(third.json.data).toMatchObject({ revision: 3, tagrading_score: 1 });

    const trail = await api.get(`${base()}/gradeable/rubric_hw/grading/${student}`, H('ta'));
    expect(trail.json.status, trail.text).toBe('success');
    const history = trail.json.data.history as {
      revision: number;
      grader_id: string;
      component_id: number;
      before: unknown;
      after: { mark_ids: number[] };
    }[];
    expect(history.map((entry) => [entry.revision, entry.grader_id, entry.component_id])).toEqual([
      [1, world.users.ta.userId, 0],
      [2, world.users.instructor.userId, 1],
      [3, world.users.mentor.userId, 0],
    ]);
    expect(history[0]!.before).toBeNull();
    expect(history[2]!.before).toMatchObject({ mark_ids: [0, 1, 2], custom_message: 'Tidy.' });
    expect(history[2]!.after.mark_ids).toEqual([1]);
  });

  it('refuses bad input with a fail envelope and changes nothing', async () => {
    const student = world.users.student.userId;
    const before = await snapshotTables();
    const cases: [Record<string, unknown>, number, string][] = [
      [{}, 400, 'The field component_id is required.'],
      [{ component_id: 'x' }, 400, 'The field component_id must be a whole number (a component’s place in the rubric, from 0).'],
      [{ component_id: 7 }, 400, 'This gradeable has no rubric component 7.'],
      [{ component_id: 0, mark_ids: [3] }, 400, 'Rubric component 0 has no mark 3.'],
      [{ component_id: 0, mark_ids: [1, 1] }, 400, 'Mark 1 is listed twice.'],
      [
        { component_id: 0, mark_ids: { a: 1 } },
        400,
        'The field mark_ids must be a list of whole numbers (marks’ places in the component, from 0).',
      ],
      [{ component_id: 0, custom_points: 6 }, 400, 'custom_points must lie between -5 and 5 (the span of rubric component 0’s clamps).'],
      [{ component_id: 0, custom_points: 'lots' }, 400, 'The field custom_points must be a number.'],
      [{ component_id: 0, custom_message: ['x'] }, 400, 'The field custom_message must be a string.'],
      [{ component_id: 0, revision: 1 }, 409, 'The grade changed since revision 1: it is at revision 3. Reload it and grade again.'],
    ];
    for (const [body, status, message] of cases) {
      const answer = await grade('rubric_hw', student, body);
      expect([answer.httpStatus, answer.json.status, answer.json.message], JSON.stringify(body)).toEqual([status, 'fail', message]);
    }
    const refusals: [string, string, keyof CourseWorld['tokens'], number, string][] = [
      ['rubric_hw', world.users.student2.userId, 'mentor', 403, 'You do not grade section 2.'],
      ['rubric_hw', world.users.dropped.userId, 'ta', 404, `No student ${world.users.dropped.userId} in this course.`],
      ['rubric_hw', world.users.ta.userId, 'instructor', 404, `No student ${world.users.ta.userId} in this course.`],
      ['no_ta', student, 'ta', 400, 'This gradeable is not graded by TAs (ta_grading is false).'],
      ['missing', student, 'ta', 404, 'Gradeable does not exist'],
      ['rubric_hw', student, 'student', 403, "You don't have access to this endpoint."],
    ];
    for (const [gradeableId, userId, persona, status, message] of refusals) {
      const answer = await grade(gradeableId, userId, { component_id: 0 }, persona);
      expect([answer.httpStatus, answer.json.message], `${gradeableId} ${userId} as ${persona}`).toEqual([status, message]);
    }
    expect(differences(before, await snapshotTables())).toEqual([]);
  });

  it('refuses grading before grade_start_date', async () => {
    await upload({
      id: 'early',
      title: 'Early',
      type: 'Numeric',
      dates: { ta_view_start_date: iso(-1), grade_start_date: iso(2), grade_due_date: iso(3), grade_released_date: iso(4) },
      rubric: [component('Q', { max: 1 })],
    });
    const answer = await grade('early', world.users.student.userId, { component_id: 0, custom_points: 1 });
    expect(answer.json.status).toBe('fail');
    expect(answer.json.message).toMatch(/^Grading has not started: it opens at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.$/);
  });

  it('grades Numeric and Checkpoints gradeables the same way', async () => {
    const student = world.users.student.userId;
    for (const [id, body] of [
      ['quiz', { component_id: 0, custom_points: 7 }],
      ['quiz', { component_id: 1, custom_points: 4.5 }],
      ['lab', { component_id: 0, custom_points: 1 }],
      ['lab', { component_id: 1, custom_points: 0 }],
      ['unreleased_hw', { component_id: 0, mark_ids: [0] }],
    ] as const) {
      const answer = await grade(id, student, body);
      expect(answer.json.status, answer.text).toBe('success');
    }
    const quiz = await api.get(`${base()}/gradeable/quiz/values`, H('student'));
    expect(quiz.json.data).toMatchObject({
      has_submission: false,
      total_points: null,
      ta_grading: true,
      ta_grading_complete: true,
      tagrading_score: 11.5,
      tagrading_max: 15,
      total_score: 11.5,
    });
  });

  it('shows students TA scores and comments only once grades are released', async () => {
    const values = await api.get(`${base()}/gradeable/rubric_hw/values`, H('student'));
    expect(values.json.status, values.text).toBe('success');
    expect(values.json.data).toMatchObject({
      total_points: 3,
      tagrading_score: 1,
      total_score: 4,
      ta_grades_released: true,
      ta_grading_complete: true,
    });
    const [style, design] = values.json.data.ta_components;
    expect(style).toMatchObject({
      component_id: 0,
      title: 'Style',
      score: 3,
      comment: 'Better names needed.',
      grader_id: null,
      graded_at: null,
    });
    expect(design).toMatchObject({
      component_id: 1,
      score: -2,
      comment: 'Globals everywhere',
      marks: [{ mark_id: 0, title: 'Globals', points: -3 }],
    });

    const hidden = await api.get(`${base()}/gradeable/unreleased_hw/values`, H('student'));
    expect(hidden.json.data).toMatchObject({ ta_grades_released: false, tagrading_score: null, total_score: null, ta_components: [] });
    const staff = await api.get(`${base()}/gradeable/unreleased_hw/values?user_id=${world.users.student.userId}`, H('ta'));
    expect(staff.json.data).toMatchObject({ tagrading_score: 2, total_score: 2 });
    expect(staff.json.data.ta_components[0].grader_id).toBe(world.users.ta.userId);
  });

  it('puts TA scores and totals into the grade summaries', async () => {
    const generated = await api.postJson(`${base()}/reports/summaries`, {}, world.tokens.instructor);
    expect(generated.json.status, generated.text).toBe('success');
    const summary = (await api.get(`${base()}/reports/summaries/${world.users.student.userId}`, H('student'))).json.data;
    const homework = Object.fromEntries((summary.Homework as { id: string }[]).map((entry) => [entry.id, entry]));
    expect(homework.rubric_hw).toMatchObject({
      status: 'Late',
      days_charged: 1,
      autograding_score: 3,
      tagrading_score: 1,
      score: 4,
      components: [
        { title: 'Style', score: 3 },
        { title: 'Design', score: -2 },
      ],
    });
    expect(homework.unreleased_hw).toBeUndefined();
    expect(homework.no_ta).toMatchObject({ status: 'Unsubmitted', tagrading_score: 0, score: 0 });
    expect(summary.Quiz).toEqual([
      expect.objectContaining({
        id: 'quiz',
        gradeable_type: 'Numeric',
        status: 'Good',
        autograding_score: 0,
        tagrading_score: 11.5,
        score: 11.5,
      }),
    ]);
    expect(summary.Lab).toEqual([expect.objectContaining({ id: 'lab', gradeable_type: 'Checkpoints', tagrading_score: 1, score: 1 })]);
    const other = (await api.get(`${base()}/reports/summaries/${world.users.student2.userId}`, H('instructor'))).json.data;
    expect(other.Quiz).toEqual([expect.objectContaining({ id: 'quiz', tagrading_score: 0, score: 0 })]);
  });

  it('lists the gradebook by section then user, paged, limited graders their sections; the admin exports it as CSV', async () => {
    const { student, student2, mentor, ta } = world.users;
    const all = await api.get(`${base()}/gradeable/rubric_hw/gradebook`, H('ta'));
    expect(all.json.status, all.text).toBe('success');
    expect(all.json.data.next_cursor).toBeNull();
    expect(all.json.data.students).toEqual([
      {
        user_id: student.userId,
        registration_section: '1',
        team_id: null,
        has_submission: true,
        highest_version: 1,
        active_version: 1,
        grading_state: 'graded',
        autograding_score: 3,
        tagrading_score: 1,
        ta_grading_complete: true,
        total_score: 4,
        days_late: 1,
        status: 'Late',
        grader_id: mentor.userId,
      },
      {
        user_id: student2.userId,
        registration_section: '2',
        team_id: null,
        has_submission: false,
        highest_version: 0,
        active_version: 0,
        grading_state: null,
        autograding_score: null,
        tagrading_score: null,
        ta_grading_complete: false,
        total_score: 0,
        days_late: 0,
        status: 'Unsubmitted',
        grader_id: null,
      },
    ]);
    const first = await api.get(`${base()}/gradeable/rubric_hw/gradebook?limit=1`, H('instructor'));
    expect(first.json.data.students.map((row: { user_id: string }) => row.user_id)).toEqual([student.userId]);
    const second = await api.get(`${base()}/gradeable/rubric_hw/gradebook?limit=1&cursor=${first.json.data.next_cursor}`, H('instructor'));
    expect(second.json.data).toMatchObject({ students: [{ user_id: student2.userId }], next_cursor: null });
    const limited = await api.get(`${base()}/gradeable/quiz/gradebook`, H('mentor'));
    expect(limited.json.data.students).toEqual([
      expect.objectContaining({ user_id: student.userId, tagrading_score: 11.5, total_score: 11.5, status: 'Good', grader_id: ta.userId }),
    ]);
    expect((await api.get(`${base()}/gradeable/quiz/gradebook?cursor=nope!`, H('ta'))).json).toEqual({
      status: 'fail',
      message: 'The cursor is not one this gradebook gave out.',
    });
    expect((await api.get(`${base()}/gradeable/quiz/gradebook`, H('student'))).json.message).toBe(
      "You don't have access to this endpoint.",
    );

    const folder = await mkdtemp(join(tmpdir(), 'gradebook-'));
    try {
      const lines: string[] = [];
      await runAdminCommand(['export-gradebook', world.course.term, world.course.course, 'rubric_hw', join(folder, 'hw.csv')], (line) =>
        lines.push(line),
      );
      expect(lines).toEqual([`Wrote the gradebook of rubric_hw (2 students) to ${join(folder, 'hw.csv')}.`]);
      const csv = (await readFile(join(folder, 'hw.csv'), 'utf8')).split('\r\n');
      expect(csv[1]).toBe(`${student.userId},1,,true,1,1,graded,3,1,true,4,1,Late,${mentor.userId}`);
      expect(csv[2]).toBe(`${student2.userId},2,,false,0,0,,,,false,0,0,Unsubmitted,`);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
