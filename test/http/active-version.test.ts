import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#shared/data/client.ts';
import { putResults } from '#shared/data/results.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { Refusal } from '#shared/errors.ts';
import { parseInput } from '#functions/definitions.ts';
import { requestedVersion as chosenVersion } from '#shared/submissions/active-version.ts';
import { differences, snapshotTables } from '../hardening/support.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { testCase } from '../support/submissions.ts';
import { publicGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { daysFromNow as iso } from '../support/dates.ts';
import { setLateDayBudget } from '../support/late-days.ts';

/** Choosing the active version over HTTP: values, attempts and summaries follow it. */
let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
/** The version a body names, read as the HTTP layer reads it (shared/http/inputs.ts), then checked against the highest. */
function requestedVersion(version: unknown, highestVersion: number): number | string {
  try {
    return chosenVersion(parseInput('set-active-version', { body: { version } }).body.version, highestVersion);
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
}
const H = (persona: keyof CourseWorld['tokens']) => ({ ...world.tokens[persona], Prefer: 'http-status' });

/** Versions 1 (on time, 5 points), 2 (2 days late, 8 points, active) and 3 (queued). */
async function threeVersions(gradeableId: string, ownerId: string) {
  const { term, course } = world.course;
  const key = gradeableKey(term, course, gradeableId);
  await putResults(key, ownerId, { version: 1, testCases: [testCase(5)], points: 5 });
  await putResults(key, ownerId, { version: 2, testCases: [testCase(8)], points: 8 });
  await dynamo().send(
    new PutCommand({
      TableName: tableName(tables.submissions),
      Item: {
        gradeableKey: key,
        ownerId,
        term,
        course,
        gradeableId,
        highestVersion: 3,
        activeVersion: 2,
        versions: [
          { version: 1, submittedAt: iso(-11), submittedBy: ownerId, daysLate: 0, ticket: 1, state: 'graded', points: 5 },
          { version: 2, submittedAt: iso(-8.5), submittedBy: ownerId, daysLate: 2, ticket: 2, state: 'graded', points: 8 },
          { version: 3, submittedAt: iso(-1), submittedBy: ownerId, daysLate: 10, ticket: 3, state: 'queued' },
        ],
        activeResults: { version: 2, testCases: [testCase(8)] },
      },
    }),
  );
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  // Late days are charged against each student's budget: three days for the course.
  await setLateDayBudget(api, world, 3);
  await uploadGradeable(
    api,
    world,
    publicGradeableJson('hw', {
      title: 'Homework',
      syllabus_bucket: 'homework',
      dates: {
        ta_view_start_date: iso(-20),
        submission_open_date: iso(-19),
        submission_due_date: iso(-10),
        team_lock_date: iso(-10),
        grade_start_date: iso(-2),
        grade_due_date: iso(-2),
        grade_released_date: iso(-1),
        grade_inquiry_start_date: iso(-1),
        grade_inquiry_due_date: iso(1),
        late_days: 3,
      },
    }),
  );
  await threeVersions('hw', world.users.student.userId);
  await threeVersions('hw', world.users.student2.userId);
}, 120_000);
afterAll(() => api.close());

const choose = (body: Record<string, unknown>, persona: keyof CourseWorld['tokens'] = 'student') =>
  api.postJson(`${base()}/gradeable/hw/version`, body, H(persona));
const values = async (persona: keyof CourseWorld['tokens'] = 'student') =>
  (await api.get(`${base()}/gradeable/hw/values`, H(persona))).json.data;
const summary = async (userId: string) => {
  expect((await api.postJson(`${base()}/reports/summaries`, {}, world.tokens.instructor)).json.status).toBe('success');
  return (await api.get(`${base()}/reports/summaries/${userId}`, H('instructor'))).json.data.Homework[0];
};

describe('the active version', () => {
  it('reads the requested version as the reference allows', () => {
    expect(requestedVersion(2, 3)).toBe(2);
    expect(requestedVersion('0', 3)).toBe(0);
    expect(requestedVersion(' 3 ', 3)).toBe(3);
    expect(requestedVersion(4, 3)).toBe('There is no version 4: the highest is 3.');
    expect(requestedVersion(0, 0)).toBe('There is no submission to choose a version of.');
    for (const bad of [-1, 1.5, 'one', '1e1', true, [1], {}]) expect(requestedVersion(bad, 3)).toMatch(/^The field version must be/);
    expect(requestedVersion(undefined, 3)).toMatch(/^The field version is required/);
  });

  it('switches to an earlier version with its results; values, attempts and summaries follow', async () => {
    const student = world.users.student.userId;
    expect(await summary(student)).toMatchObject({ status: 'Late', days_after_deadline: 2, days_charged: 2, score: 8 });
    const answer = await choose({ version: 1 });
    expect(answer.json).toEqual({
      status: 'success',
      data: { active_version: 1, highest_version: 3, message: 'Updated the active version of Homework to version 1.' },
    });
    expect(await values()).toMatchObject({
      has_active_version: true,
      highest_version: 3,
      autograding_complete: true,
      total_points: 5,
      total_score: 5,
    });
    const attempts = (await api.get(`${base()}/gradeable/hw/attempts`, H('student'))).json.data as { version: number; active: boolean }[];
    expect(attempts.map((attempt) => [attempt.version, attempt.active])).toEqual([
      [3, false],
      [2, false],
      [1, true],
    ]);
    expect(await summary(student)).toMatchObject({
      status: 'Good',
      days_after_deadline: 0,
      days_charged: 0,
      score: 5,
      autograding_score: 5,
    });
  });

  it('switches to a version still queued: no results until it is graded', async () => {
    expect((await choose({ version: '3' })).json.status).toBe('success');
    expect(await values()).toMatchObject({ has_active_version: true, is_queued: true, autograding_complete: false, total_points: 0 });
  });

  it('cancels the submission (version 0): nothing active, Unsubmitted in the summary', async () => {
    const answer = await choose({ version: 0 });
    expect(answer.json.data).toEqual({ active_version: 0, highest_version: 3, message: 'Cancelled the submission of Homework.' });
    expect(await values()).toMatchObject({ has_submission: true, has_active_version: false, highest_version: 3, total_points: null });
    expect(await summary(world.users.student.userId)).toMatchObject({ status: 'Unsubmitted', score: 0, days_charged: 0 });
    expect((await choose({ version: 2 })).json.data.active_version).toBe(2);
    expect(await values()).toMatchObject({ total_points: 8 });
  });

  it('lets instructors and full access graders choose for a student, nobody else', async () => {
    const student2 = world.users.student2.userId;
    const byTa = await choose({ version: 1, user_id: student2 }, 'ta');
    expect(byTa.json.data.message).toBe(`Updated the active version of Homework to version 1 for ${student2}.`);
    const before = await snapshotTables();
    const refusals: [Record<string, unknown>, keyof CourseWorld['tokens'], number, string][] = [
      [{ version: 2, user_id: student2 }, 'mentor', 400, 'API key and specified user_id are not for the same user.'],
      [{ version: 2, user_id: student2 }, 'student', 400, 'API key and specified user_id are not for the same user.'],
      [{ version: 2, user_id: 'nobody' }, 'instructor', 404, 'User nobody is not in this course.'],
      [{ version: 9 }, 'student', 400, 'There is no version 9: the highest is 3.'],
      [{ version: -1 }, 'student', 400, 'The field version must be a whole number from 0 (0 cancels the submission).'],
      [{}, 'student', 400, 'The field version is required (0 cancels the submission).'],
      [{ version: 1 }, 'ta', 400, 'There is no submission to choose a version of.'],
      [{ version: 1, user_id: ['x'] }, 'ta', 400, 'The field user_id must be a string.'],
    ];
    for (const [body, persona, status, message] of refusals) {
      const answer = await choose(body, persona);
      expect([answer.httpStatus, answer.json.status, answer.json.message], `${JSON.stringify(body)} as ${persona}`).toEqual([
        status,
        'fail',
        message,
      ]);
    }
    expect(differences(before, await snapshotTables())).toEqual([]);
    expect((await api.get(`${base()}/gradeable/hw/values?user_id=${student2}`, H('instructor'))).json.data).toMatchObject({
      total_points: 5,
    });
  });
});
