import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/http.ts';
import { editStoredGradeable, publicGradeableJson, vcsGradeableJson } from '../support/gradeables.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { rubricComponent } from '../support/rubric.ts';
import { daysFromNow as iso } from '../support/dates.ts';

/**
 * Late days over HTTP: a course's budget, grants and extensions set by the
 * instructor, students submitting late, TA grades, and summaries whose status, days charged,
 * budget left and scores are exactly what Rainbow Grades' rules give.
 */
let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
type Persona = keyof CourseWorld['tokens'];
const H = (persona: Persona) => ({ ...world.tokens[persona], Prefer: 'http-status' });
const put = (path: string, body: unknown, persona: Persona = 'instructor') =>
  api.call('PUT', `${base()}${path}`, { headers: { 'Content-Type': 'application/json', ...H(persona) }, body: JSON.stringify(body) });
const post = (path: string, body: unknown, persona: Persona = 'instructor') => api.postJson(`${base()}${path}`, body, H(persona));
const get = (path: string, persona: Persona = 'instructor') => api.get(`${base()}${path}`, H(persona));
type Json = Record<string, unknown>;
interface TableEntry {
  readonly id: string;
  readonly status: string;
  readonly days_late: number | null;
  readonly days_charged: number | null;
  readonly late_day_exceptions: number;
  readonly reason_for_exception: string;
}
interface Table {
  readonly grants: readonly { readonly allowed_late_days: number }[];
  readonly gradeables: readonly TableEntry[];
}
const ok = <T = Json>(answer: { json: { status: string; data?: unknown }; text: string }): T => {
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as T;
};

/**
 * An Electronic File gradeable due `dueDaysAgo` days ago (a submission now is that many days late,
 * rounded up), TA graded on one 10-point component, released, allowing `lateDays` days late.
 */
async function homework(id: string, dueDaysAgo: number, lateDays: number, lateSubmissionAllowed = true) {
  const due = -dueDaysAgo;
  ok(
    await post(
      '/upload',
      publicGradeableJson(id, {
        title: `Title ${id}`,
        syllabus_bucket: 'homework',
        ta_grading: true,
        rubric: [rubricComponent('Work', { max_value: 10, upper_clamp: 10 })],
        dates: {
          ta_view_start_date: iso(-20),
          submission_open_date: iso(-19),
          submission_due_date: iso(due),
          team_lock_date: iso(due),
          grade_start_date: iso(due + 0.05),
          grade_due_date: iso(due + 0.1),
          grade_released_date: iso(-0.1),
          grade_inquiry_start_date: iso(-0.1),
          grade_inquiry_due_date: iso(5),
          late_submission_allowed: lateSubmissionAllowed,
          late_days: lateDays,
        },
      }),
    ),
  );
}

const submit = (gradeableId: string, persona: Persona) =>
  post(`/gradeable/${gradeableId}/upload`, { vcs_checkout: true, git_repo_id: 'none' }, persona);
const taGrade = async (gradeableId: string, userId: string, points: number) =>
  ok(await post(`/gradeable/${gradeableId}/grading/${userId}`, { component_id: 0, custom_points: points }, 'ta'));

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  // Due dates (days ago) and allowances; a submission now is late by the due date's age, rounded up.
  await homework('hw1', 2.5, 3); // 3 days late
  await homework('hw_strict', 1.7, 0, false); // 2 days late, refused without an extension
  await homework('hw2', 1.5, 2); // 2 days late
  await homework('hw3', 0.5, 1); // 1 day late
  ok(
    await post('/upload', {
      id: 'lab',
      title: 'Lab',
      type: 'Checkpoints',
      syllabus_bucket: 'lab',
      dates: { ta_view_start_date: iso(-3), grade_start_date: iso(-2), grade_due_date: iso(-1), grade_released_date: iso(-0.5) },
    }),
  );
}, 120_000);
afterAll(() => api.close());

describe('late days', () => {
  it('sets the course budget, grants and extensions as the instructor says', async () => {
    expect(ok(await put('/late-days', { default_student_late_days: 2 }))).toEqual({ default_student_late_days: 2 });
    // The budget's change is in the course's audit trail, as a change through the settings is.
    const trail = ok(await get('/audit')) as { action: string; actor: string; target: string; before: unknown; after: unknown }[];
    expect(trail.filter((entry) => entry.action === 'course.setting-changed')).toMatchObject([
      {
        actor: world.users.instructor.userId,
        target: 'default_student_late_days',
        before: { default_student_late_days: 0 },
        after: { default_student_late_days: 2 },
      },
    ]);
    const { student, student2 } = world.users;
    // From three days ago, before any of the due dates, `student` has 4 days in all.
    const since = iso(-3);
    expect(ok(await post(`/late-days/${student.userId}`, { allowed_late_days: 4, since }))).toEqual({
      user_id: student.userId,
      grants: [{ since: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), allowed_late_days: 4 }],
    });
    // A grant for `student2` that starts tomorrow counts for nothing yet.
    ok(await post(`/late-days/${student2.userId}`, { allowed_late_days: 9, since: iso(1) }));
    expect(
      ok(await put(`/gradeable/hw1/extensions/${student2.userId}`, { late_days: 2, reason_for_exception: 'Illness (documented)' })),
    ).toEqual({ user_id: student2.userId, gradeable_id: 'hw1', late_day_exceptions: 2, reason_for_exception: 'Illness (documented)' });
    ok(await put(`/gradeable/hw_strict/extensions/${student2.userId}`, { late_days: 2, reason_for_exception: 'Travel' }));
  });

  it('accepts a late submission a gradeable refuses only within the student’s extension', async () => {
    const refused = await submit('hw_strict', 'student');
    expect(refused.json).toEqual({
      status: 'fail',
      message: 'The due date has passed: this submission would be 2 days late, and this gradeable accepts at most 0 days late.',
    });
    expect(ok(await submit('hw_strict', 'student2'))).toBe('Successfully uploaded version 1 for Title hw_strict');
  });

  it('charges late submissions against each student’s budget in the summaries, scores as graded', async () => {
    const { student, student2 } = world.users;
    for (const id of ['hw1', 'hw2', 'hw3']) {
      ok(await submit(id, 'student'));
      ok(await submit(id, 'student2'));
    }
    await taGrade('hw1', student.userId, 7);
    await taGrade('hw2', student.userId, 8);
    await taGrade('hw3', student.userId, 9);
    await taGrade('hw1', student2.userId, 6);
    await taGrade('hw_strict', student2.userId, 5);
    await taGrade('hw2', student2.userId, 4);
    await taGrade('hw3', student2.userId, 3);
    ok(await post('/reports/summaries', {}));

    const summary = async (userId: string) => ok(await get(`/reports/summaries/${userId}`));
    const entries = (document: Json) => Object.fromEntries((document.Homework as { id: string }[]).map((entry) => [entry.id, entry]));

    // student: 4 days from the grant. hw1 3 late (allowance 3): charged, 1 left; hw2 2 late with 1
    // left: Bad, score 0; hw3 1 late (allowance 1): charged, none left.
    const mine = await summary(student.userId);
    expect(mine).toMatchObject({ default_allowed_late_days: 2, late_days_remaining: 0 });
    expect(entries(mine)).toMatchObject({
      hw1: { status: 'Late', score: 7, tagrading_score: 7, days_after_deadline: 3, days_charged: 3, late_days_remaining: 1 },
      hw_strict: { status: 'Unsubmitted', score: 0, days_after_deadline: 0, days_charged: 0, late_days_remaining: 1 },
      hw2: { status: 'Bad', score: 0, tagrading_score: 8, days_after_deadline: 2, days_charged: 0, late_days_remaining: 1 },
      hw3: { status: 'Late', score: 9, days_after_deadline: 1, days_charged: 1, late_days_remaining: 0 },
    });
    expect(entries(mine).hw1).not.toHaveProperty('late_day_exceptions');

    // student2: the course's 2 days (tomorrow's grant not yet). hw1 3 late, 2 covered by the
    // extension: 1 charged; hw_strict 2 late within its extension: Good; hw2 2 late with 1 left:
    // Bad; hw3 1 late: charged, none left.
    const theirs = await summary(student2.userId);
    expect(theirs).toMatchObject({ default_allowed_late_days: 2, late_days_remaining: 0 });
    expect(entries(theirs)).toMatchObject({
      hw1: {
        status: 'Late',
        score: 6,
        late_day_exceptions: 2,
        reason_for_exception: 'Illness (documented)',
        days_after_deadline: 3,
        days_charged: 1,
        late_days_remaining: 1,
      },
      hw_strict: {
        status: 'Good',
        score: 5,
        late_day_exceptions: 2,
        reason_for_exception: 'Travel',
        days_after_deadline: 2,
        days_charged: 0,
        late_days_remaining: 1,
      },
      hw2: { status: 'Bad', score: 0, days_after_deadline: 2, days_charged: 0, late_days_remaining: 1 },
      hw3: { status: 'Late', score: 3, days_after_deadline: 1, days_charged: 1, late_days_remaining: 0 },
    });
    expect(theirs.Lab).toHaveLength(1);
    expect((theirs.Lab as unknown[])[0]).not.toHaveProperty('late_days_remaining');
  });

  it('answers a student’s late-day table as the summaries charge it', async () => {
    const { student, student2 } = world.users;
    const table = ok(await get(`/late-days/${student2.userId}`, 'student2'));
    expect(table).toEqual({
      user_id: student2.userId,
      default_student_late_days: 2,
      grants: [{ since: expect.any(String), allowed_late_days: 9 }],
      late_days_remaining: 0,
      gradeables: [
        {
          id: 'hw1',
          title: 'Title hw1',
          submission_due_date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
          allowed_late_days: 3,
          late_day_exceptions: 2,
          reason_for_exception: 'Illness (documented)',
          days_late: 3,
          days_charged: 1,
          status: 'Late',
          late_days_remaining: 1,
        },
        expect.objectContaining({ id: 'hw_strict', status: 'Good', days_late: 2, days_charged: 0, late_day_exceptions: 2 }),
        expect.objectContaining({ id: 'hw2', status: 'Bad', days_late: 2, days_charged: 0, late_days_remaining: 1 }),
        expect.objectContaining({ id: 'hw3', status: 'Late', days_late: 1, days_charged: 1, late_days_remaining: 0 }),
      ],
    });
    // Instructors and full access graders read anyone's; limited access graders their sections'.
    expect(ok(await get(`/late-days/${student2.userId}`, 'ta'))).toEqual(table);
    expect(ok(await get(`/late-days/${student2.userId}`, 'instructor'))).toEqual(table);
    expect(ok(await get(`/late-days/${student.userId}`, 'mentor'))).toMatchObject({ user_id: student.userId, late_days_remaining: 0 });
    const mentor = await get(`/late-days/${student2.userId}`, 'mentor');
    expect([mentor.httpStatus, mentor.json]).toEqual([403, { status: 'fail', message: 'You do not grade section 2.' }]);
    const other = await get(`/late-days/${student.userId}`, 'student2');
    expect([other.httpStatus, other.json.message]).toEqual([403, "You don't have access to this endpoint."]);
    const unsubmitted = ok<Table>(await get(`/late-days/${world.users.dropped.userId}`));
    expect(unsubmitted.gradeables.map((entry) => [entry.status, entry.days_late])).toEqual([
      ['Unsubmitted', null],
      ['Unsubmitted', null],
      ['Unsubmitted', null],
      ['Unsubmitted', null],
    ]);
  });

  it('gives in values the active version’s lateness and the late days left, as the late-day table says them', async () => {
    const standing = (data: Json) => [data.days_late, data.late_days_charged, data.late_days_remaining];
    const cases = [
      ['student', 'hw1', [3, 3, 0]], // late within the gradeable's allowance and the budget: charged
      ['student', 'hw_strict', [null, null, 0]], // refused: nothing active
      ['student', 'hw2', [2, 0, 0]], // Bad: the budget left was 1
      ['student', 'hw3', [1, 1, 0]], // charged after hw1: across two gradeables, none left
      ['student2', 'hw1', [3, 1, 0]], // an extension of 2 days: 1 charged
      ['student2', 'hw_strict', [2, 0, 0]], // within the extension: nothing charged
      ['student2', 'hw2', [2, 0, 0]],
      ['student2', 'hw3', [1, 1, 0]],
    ] as const;
    for (const [persona, id, expected] of cases) {
      const userId = world.users[persona].userId;
      const table = ok<Table & { late_days_remaining: number }>(await get(`/late-days/${userId}`, persona));
      const entry = table.gradeables.find((gradeable) => gradeable.id === id);
      expect([entry?.days_late, entry?.days_charged, table.late_days_remaining], `${persona}'s table, ${id}`).toEqual(expected);
      expect(standing(ok(await get(`/gradeable/${id}/values`, persona))), `${persona}'s values of ${id}`).toEqual(expected);
      // Staff reading the student's values see the same.
      expect(standing(ok(await get(`/gradeable/${id}/values?user_id=${userId}`, 'ta'))), `${id} for ${persona}, read by the ta`).toEqual(
        expected,
      );
    }
    // A gradeable without late days has none; a grader reading their own values has no budget.
    expect(standing(ok(await get('/gradeable/lab/values', 'student')))).toEqual([null, null, null]);
    expect(standing(ok(await get('/gradeable/hw1/values', 'ta')))).toEqual([null, null, null]);
  });

  it('removes an extension with 0 days, and keeps concurrent changes of one student', async () => {
    const { dropped } = world.users;
    await Promise.all(
      ['hw1', 'hw2', 'hw3', 'hw_strict'].map((id, index) =>
        put(`/gradeable/${id}/extensions/${dropped.userId}`, { late_days: index + 1, reason_for_exception: id }).then(ok),
      ),
    );
    await Promise.all(
      [1, 2, 3].map((days) => post(`/late-days/${dropped.userId}`, { allowed_late_days: days, since: iso(-10 + days) }).then(ok)),
    );
    ok(await put(`/gradeable/hw2/extensions/${dropped.userId}`, { late_days: 0 }));
    const table = ok<Table>(await get(`/late-days/${dropped.userId}`));
    expect(table.grants.map((grant) => grant.allowed_late_days)).toEqual([1, 2, 3]);
    expect(
      Object.fromEntries(table.gradeables.map((entry) => [entry.id, [entry.late_day_exceptions, entry.reason_for_exception]])),
    ).toEqual({
      hw1: [1, 'hw1'],
      hw_strict: [4, 'hw_strict'],
      hw2: [0, ''],
      hw3: [3, 'hw3'],
    });
  });

  it('refuses unknown students and gradeables, and gradeables without late days', async () => {
    const nobody = await post('/late-days/nobody_here', { allowed_late_days: 1 });
    expect([nobody.httpStatus, nobody.json.message]).toEqual([404, 'No student nobody_here in this course.']);
    const grader = await put(`/gradeable/hw1/extensions/${world.users.ta.userId}`, { late_days: 1 });
    expect([grader.httpStatus, grader.json.message]).toEqual([404, `No student ${world.users.ta.userId} in this course.`]);
    const missing = await put(`/gradeable/nope/extensions/${world.users.student.userId}`, { late_days: 1 });
    expect([missing.httpStatus, missing.json.message]).toEqual([404, 'Gradeable does not exist']);
    const lab = await put(`/gradeable/lab/extensions/${world.users.student.userId}`, { late_days: 1 });
    expect([lab.httpStatus, lab.json.message]).toEqual([400, 'Only Electronic File gradeables have late days.']);
    const since = await post(`/late-days/${world.users.student.userId}`, { allowed_late_days: 1, since: 'yesterday' });
    expect([since.httpStatus, since.json.message]).toEqual([400, expect.stringMatching(/^since must be a date/)]);
  });

  it('shows in the gradebook and the attempts the days late the summaries charge: none without a due date', async () => {
    const { student } = world.users;
    // Past its (ignored) due date by 1.5 days, but without a due date: nothing is late.
    ok(
      await post(
        '/upload',
        publicGradeableJson('hw_open', {
          title: 'Open',
          syllabus_bucket: 'homework',
          dates: {
            ta_view_start_date: iso(-20),
            submission_open_date: iso(-19),
            submission_due_date: iso(-1.5),
            grade_start_date: iso(-1),
            grade_due_date: iso(-0.5),
            grade_released_date: iso(-0.2),
            has_due_date: false,
            late_days: 0,
          },
        }),
      ),
    );
    ok(await submit('hw_open', 'student'));
    ok(await post('/reports/summaries', {}));
    const summary = ok(await get(`/reports/summaries/${student.userId}`));
    const entries = Object.fromEntries(
      (summary.Homework as { id: string; status: string; days_after_deadline: number }[]).map((entry) => [entry.id, entry]),
    );
    const gradebook = async (id: string) => {
      const rows = ok<{ students: { user_id: string; days_late: number; status: string }[] }>(
        await get(`/gradeable/${id}/gradebook`, 'ta'),
      ).students;
      const row = rows.find((candidate) => candidate.user_id === student.userId);
      return [row?.status, row?.days_late];
    };
    expect(entries.hw_open).toMatchObject({ status: 'Good', days_after_deadline: 0, days_charged: 0 });
    expect(await gradebook('hw_open')).toEqual(['Good', 0]);
    const attempts = ok<{ days_late: number }[]>(await get(`/gradeable/hw_open/attempts?user_id=${student.userId}`));
    expect(attempts.map((attempt) => attempt.days_late)).toEqual([0]);
    // With due dates, the gradebook charges as the summaries do, the gradeables due before included.
    for (const id of ['hw1', 'hw2', 'hw3']) {
      const entry = entries[id]!;
      expect(await gradebook(id), id).toEqual([entry.status, entry.days_after_deadline]);
    }
    expect(await gradebook('hw2')).toEqual(['Bad', 2]);
  });
});

/**
 * The late-day table reads a student's submissions through an index, and their team submissions
 * through copies on their team entries: every submission and choice of version must show in it,
 * for the submitter and for their teammates alike.
 */
describe('a late-day table after every submission and choice of version', () => {
  let second: CourseWorld;
  const at = () => `/${second.course.term}/${second.course.course}`;
  const as = (persona: Persona) => ({ ...second.tokens[persona], Prefer: 'http-status' });
  const upload = async (id: string, team: boolean) =>
    ok(await api.postJson(`${at()}/upload`, vcsGradeableJson(id, { dueInDays: 3, lateDays: 3, team }), as('instructor')));
  /** Moves the due date to `daysAgo` days ago, as editing the stored gradeable would: versions submitted later are late. */
  const moveDueDate = (id: string, daysAgo: number) =>
    editStoredGradeable(second.course, id, (document) => {
      document.dates.submission_due_date = iso(-daysAgo);
    });
  const submitAs = (id: string, persona: Persona) =>
    api.postJson(`${at()}/gradeable/${id}/upload`, { vcs_checkout: true, git_repo_id: 'none' }, as(persona));
  const choose = (id: string, body: Json, persona: Persona) => api.postJson(`${at()}/gradeable/${id}/version`, body, as(persona));
  /** One gradeable's row of a student's table, as [status, days late, days charged]. */
  const row = async (id: string, persona: 'student' | 'student2', reader: Persona = persona) => {
    const table = ok<Table>(await api.get(`${at()}/late-days/${second.users[persona].userId}`, as(reader)));
    const entry = table.gradeables.find((gradeable) => gradeable.id === id);
    return entry && [entry.status, entry.days_late, entry.days_charged];
  };

  beforeAll(async () => {
    second = await createCourseWorld(api);
    ok(
      await api.call('PUT', `${at()}/late-days`, {
        headers: { 'Content-Type': 'application/json', ...as('instructor') },
        body: '{"default_student_late_days":5}',
      }),
    );
    await upload('solo', false);
    await upload('pair', true);
    const { runAdminCommand } = await import('#infra/admin/commands.ts');
    const { term, course } = second.course;
    await runAdminCommand(
      ['create-team', term, course, 'pair', 'pair_team', second.users.student.userId, second.users.student2.userId],
      () => {},
    );
  }, 120_000);

  it('shows a student’s own submissions: submitted on time, late, then a version chosen and the submission cancelled', async () => {
    expect(await row('solo', 'student')).toEqual(['Unsubmitted', null, null]);
    ok(await submitAs('solo', 'student'));
    expect(await row('solo', 'student')).toEqual(['Good', 0, 0]);
    // On time: values say so, with the course's 5 days left.
    const values = ok(await api.get(`${at()}/gradeable/solo/values`, as('student')));
    expect([values.days_late, values.late_days_charged, values.late_days_remaining]).toEqual([0, 0, 5]);
    await moveDueDate('solo', 1.5);
    ok(await submitAs('solo', 'student')); // version 2, 2 days late
    expect(await row('solo', 'student')).toEqual(['Late', 2, 2]);
    expect(ok(await choose('solo', { version: 1 }, 'student'))).toMatchObject({ active_version: 1 });
    expect(await row('solo', 'student')).toEqual(['Good', 0, 0]);
    ok(await choose('solo', { version: 0 }, 'student'));
    expect(await row('solo', 'student')).toEqual(['Unsubmitted', null, null]);
    ok(await choose('solo', { version: 2, user_id: second.users.student.userId }, 'instructor'));
    expect(await row('solo', 'student', 'ta')).toEqual(['Late', 2, 2]);
    // A teammate's table holds nothing of it.
    expect(await row('solo', 'student2')).toEqual(['Unsubmitted', null, null]);
  });

  it('shows a team submission to every member as each of them submits and chooses versions', async () => {
    expect(await row('pair', 'student2')).toEqual(['Unsubmitted', null, null]);
    ok(await submitAs('pair', 'student'));
    expect(await row('pair', 'student2')).toEqual(['Good', 0, 0]);
    await moveDueDate('pair', 1.5);
    ok(await submitAs('pair', 'student2')); // the team's version 2, 2 days late
    expect(await row('pair', 'student')).toEqual(['Late', 2, 2]);
    expect(await row('pair', 'student2')).toEqual(['Late', 2, 2]);
    // One member goes back to the version on time: the other's table follows.
    expect(ok(await choose('pair', { version: 1 }, 'student'))).toMatchObject({ active_version: 1 });
    expect(await row('pair', 'student2')).toEqual(['Good', 0, 0]);
    expect(await row('pair', 'student')).toEqual(['Good', 0, 0]);
    // An instructor cancels the team's submission for one member: nothing is charged to either.
    ok(await choose('pair', { version: 0, user_id: second.users.student2.userId }, 'instructor'));
    expect(await row('pair', 'student')).toEqual(['Unsubmitted', null, null]);
    expect(await row('pair', 'student2', 'instructor')).toEqual(['Unsubmitted', null, null]);
    ok(await choose('pair', { version: 2 }, 'student2'));
    expect(await row('pair', 'student')).toEqual(['Late', 2, 2]);
    // The team's late days are no one else's.
    expect(await row('pair', 'student', 'ta')).toEqual(['Late', 2, 2]);
    expect(
      ok<Table>(await api.get(`${at()}/late-days/${second.users.dropped.userId}`, as('instructor'))).gradeables.map(
        (entry) => entry.status,
      ),
    ).toEqual(['Unsubmitted', 'Unsubmitted']);
  });
});
