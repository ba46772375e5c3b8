import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryAll, scanAll } from '#shared/data/paging.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { startTestApi, type TestApi, type Answer } from '../support/http.ts';
import { vcsGradeableJson } from '../support/gradeables.ts';
import { addMember, createCourseWorld, type CourseWorld, type Persona } from '../support/courses.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { mark, rubricComponent } from '../support/rubric.ts';
import { daysFromNow as iso } from '../support/dates.ts';

/**
 * Deleting a gradeable, or changing it in a way that would strand submissions, at the very moment
 * students submit for the first time and graders give first grades: over HTTP, against DynamoDB.
 * Whatever wins, nothing is left orphaned: either the change went through and nothing of the
 * gradeable was submitted or graded under its old form, or the change was refused and every
 * submission and grade answered as accepted is there.
 */
let api: TestApi;
let world: CourseWorld;
let students: TestUser[];
const SUBMITTERS = 10;
const GRADED = 6;
const base = () => `/${world.course.term}/${world.course.course}`;
const H = (persona: Persona) => ({ ...world.tokens[persona], Prefer: 'http-status' });

/** A VCS gradeable due ten days ago (late submissions accepted), graded by TAs since nine days ago. */
const gradeableJson = (id: string): Record<string, unknown> => {
  const json = vcsGradeableJson(id, { dueInDays: -10, lateDays: 0 });
  return {
    ...json,
    ta_grading: true,
    dates: { ...(json.dates as Record<string, unknown>), grade_start_date: iso(-9), grade_due_date: iso(-8), grade_released_date: iso(5) },
    rubric: [rubricComponent('Style', { marks: [mark(2, 'Clear names')] })],
  };
};

const submissionItems = (id: string) =>
  queryAll({
    TableName: tableName(tables.submissions),
    KeyConditionExpression: 'gradeableKey = :key',
    ExpressionAttributeValues: { ':key': gradeableKey(world.course.term, world.course.course, id) },
    ConsistentRead: true,
  });
const jobsOf = async (id: string) =>
  (await scanAll({ TableName: tableName(tables.jobs), ConsistentRead: true })).filter(
    (item) => item.gradeableKey === gradeableKey(world.course.term, world.course.course, id),
  );
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  students = await Promise.all(Array.from({ length: SUBMITTERS + GRADED }, () => createUser('user', 'racer')));
  await Promise.all(students.map((student) => addMember(world.course, student, 4, '1')));
}, 120_000);
afterAll(() => api.close());

/** The change, first submissions (staff's for students) and first grades, all started together; the change lands among them. */
async function race(id: string, change: () => Promise<Answer>) {
  const upload = await api.postJson(`${base()}/upload`, gradeableJson(id), H('instructor'));
  expect(upload.json.status, upload.text).toBe('success');
  const submitters = students.slice(0, SUBMITTERS);
  const graded = students.slice(SUBMITTERS);
  const [changed, submitted, graded_] = await Promise.all([
    pause(Math.random() * 150).then(change),
    Promise.all(
      submitters.map((student) =>
        api.postJson(
          `${base()}/gradeable/${id}/upload`,
          { user_id: student.userId, vcs_checkout: true, git_repo_id: 'x' },
          H('instructor'),
        ),
      ),
    ),
    Promise.all(
      graded.map((student) =>
        api.postJson(`${base()}/gradeable/${id}/grading/${student.userId}`, { component_id: 0, mark_ids: [0] }, H('ta')),
      ),
    ),
  ]);
  for (const answer of [changed, ...submitted, ...graded_]) {
    // Every answer is the envelope: accepted, or a fail that says why (never a server error).
    expect(answer.httpStatus, answer.text).toBeLessThan(500);
  }
  return { changed, submitted, graded: graded_, submitters, gradedStudents: graded };
}

describe('a gradeable change racing first submissions and grades', () => {
  it('DELETE: either the gradeable is gone with nothing of it left, or it was refused and everything accepted is there', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 4; round++) {
      const id = `race_delete_${round}`;
      const { changed, submitted, graded, submitters, gradedStudents } = await race(id, () =>
        api.call('DELETE', `${base()}/gradeable/${id}`, { headers: H('instructor') }),
      );
      const items = await submissionItems(id);
      if (changed.json.status === 'success') {
        outcomes.push('deleted');
        expect((await api.get(`${base()}/${id}/download`, H('instructor'))).httpStatus).toBe(404);
        expect(items.map((item) => item.ownerId)).toEqual([]);
        expect(await jobsOf(id)).toEqual([]);
        expect(submitted.filter((answer) => answer.json.status === 'success').map((answer) => answer.text)).toEqual([]);
        expect(graded.filter((answer) => answer.json.status === 'success').map((answer) => answer.text)).toEqual([]);
      } else {
        outcomes.push('refused');
        expect(changed.httpStatus, changed.text).toBe(409);
        const owners = new Set(items.map((item) => item.ownerId as string));
        submitters.forEach((student, index) => {
          if (submitted[index]?.json.status === 'success') expect(owners, student.userId).toContain(student.userId);
        });
        gradedStudents.forEach((student, index) => {
          if (graded[index]?.json.status === 'success') expect(owners, student.userId).toContain(student.userId);
        });
        expect((await api.get(`${base()}/${id}/download`, H('instructor'))).httpStatus).toBe(200);
      }
    }
    // Both outcomes are fine; which one each round had is only for the record.
    console.info(`DELETE races: ${outcomes.join(', ')}`);
  }, 240_000);

  it('a PUT taking version control away: either it went through and no version exists, or it was refused', async () => {
    for (let round = 0; round < 3; round++) {
      const id = `race_put_${round}`;
      const { changed, submitted } = await race(id, async () => {
        const { vcs: _vcs, ...withoutVcs } = gradeableJson(id);
        return api.call('PUT', `${base()}/gradeable/${id}`, {
          headers: { 'Content-Type': 'application/json', ...H('instructor') },
          body: JSON.stringify(withoutVcs),
        });
      });
      const versions = (await submissionItems(id)).filter((item) => ((item.versions as unknown[] | undefined) ?? []).length > 0);
      if (changed.json.status === 'success') {
        // Grades given after the change are grades of the changed gradeable; versions would be stranded.
        expect(versions.map((item) => item.ownerId)).toEqual([]);
        expect(await jobsOf(id)).toEqual([]);
        expect(submitted.filter((answer) => answer.json.status === 'success').map((answer) => answer.text)).toEqual([]);
      } else {
        expect(changed.httpStatus, changed.text).toBe(409);
        expect(changed.json.message).toBe('vcs cannot change: the gradeable has submissions or grades that the change would strand.');
        const owners = new Set(versions.map((item) => item.ownerId as string));
        students.slice(0, SUBMITTERS).forEach((student, index) => {
          if (submitted[index]?.json.status === 'success') expect(owners, student.userId).toContain(student.userId);
        });
      }
    }
  }, 240_000);

  it('the gates beside the gradeables (left by the changes above) do not show in the list', async () => {
    const listed = await api.get(`${base()}/gradeables`, H('instructor'));
    expect(listed.json.status, listed.text).toBe('success');
    expect(Object.keys(listed.json.data as Record<string, unknown>).filter((id) => id.includes('#'))).toEqual([]);
  });
});
