import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '#infra/admin/commands.ts';
import { handler as generateHandler } from '#functions/generate-summaries/handler.ts';
import { dynamo } from '#shared/data/client.ts';
import { courseRef, setArchived } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { summariesOf, writeSummaries } from '#shared/data/summaries.ts';
import { generateAllSummaries, generateSummaries } from '#shared/summaries/generate.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourse, createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { lambdaContext } from '../support/events.ts';
import { daysFromNow } from '../support/dates.ts';
import { putGradedSubmission } from '../support/submissions.ts';
import { publicGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { setLateDayBudget } from '../support/late-days.ts';

let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;

/** A graded active version with the given points and lateness, written as the worker would leave it. */
const graded = (gradeableId: string, userId: string, points: number, daysLate: number) =>
  putGradedSubmission({
    term: world.course.term,
    course: world.course.course,
    gradeableId,
    userId,
    points,
    daysLate,
    submittedDaysFromNow: -1,
    withResults: true,
  });

async function gradeable(id: string, bucket: string, released: boolean, lateDays = 2) {
  const released_at = released ? -1 : 5;
  await uploadGradeable(
    api,
    world,
    publicGradeableJson(id, {
      title: `Title ${id}`,
      syllabus_bucket: bucket,
      dates: {
        ta_view_start_date: daysFromNow(-20),
        submission_open_date: daysFromNow(-19),
        submission_due_date: daysFromNow(-10),
        team_lock_date: daysFromNow(-10),
        grade_start_date: daysFromNow(-9),
        grade_due_date: daysFromNow(released_at - 1),
        grade_released_date: daysFromNow(released_at),
        grade_inquiry_start_date: daysFromNow(released_at),
        grade_inquiry_due_date: daysFromNow(released_at + 1),
        late_days: lateDays,
      },
    }),
  );
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  // Late days are charged against each student's budget: two days for the course.
  await setLateDayBudget(api, world, 2);
  await gradeable('hw1', 'homework', true);
  await gradeable('hw2', 'homework', true);
  await gradeable('lab1', 'lab', true);
  await gradeable('hw_future', 'homework', false);
  const student = world.users.student.userId;
  await graded('hw1', student, 8, 0); // on time
  await graded('hw2', student, 9, 2); // late, within the allowance of 2
  await graded('lab1', student, 7, 3); // late beyond it
  await graded('hw_future', student, 10, 0); // not released
  await graded('hw1', world.users.student2.userId, 4, 1);
});
afterAll(() => api.close());

describe('grade summaries', () => {
  it('generates one summary per user in the reference format', async () => {
    const answer = await api.call('POST', `${base()}/reports/summaries`, { headers: world.tokens.instructor });
    expect(answer.json).toEqual({
      status: 'success',
      data: {
        course: `${world.course.term}/${world.course.course}`,
        summaries: 6,
        generated_at: expect.any(String),
        generation: expect.any(String),
      },
    });
    const mine = await api.get(`${base()}/reports/summaries/${world.users.student.userId}`, world.tokens.student);
    const summary = mine.json.data;
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
      user_id: world.users.student.userId,
      legal_first_name: 'Given',
      registration_section: '1',
      rotating_section: null,
      default_allowed_late_days: 2,
      // hw2 took both days.
      late_days_remaining: 0,
    });
    const entry = (key: string, id: string) => summary[key].find((item: { id: string }) => item.id === id);
    expect(entry('Homework', 'hw1')).toEqual({
      id: 'hw1',
      name: 'Title hw1',
      gradeable_type: 'Electronic File',
      grade_released_date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      score: 8,
      status: 'Good',
      days_after_deadline: 0,
      days_charged: 0,
      late_days_remaining: 2,
      autograding_score: 8,
      tagrading_score: 0,
      components: [],
    });
    expect(entry('Homework', 'hw2')).toMatchObject({ score: 9, status: 'Late', days_after_deadline: 2, days_charged: 2 });
    expect(entry('Lab', 'lab1')).toMatchObject({ score: 0, status: 'Bad', days_after_deadline: 3, days_charged: 0, autograding_score: 7 });
    expect(summary.Homework.map((item: { id: string }) => item.id)).toEqual(['hw1', 'hw2']);

    const other = await api.get(`${base()}/reports/summaries/${world.users.student2.userId}`, world.tokens.instructor);
    expect(other.json.data.Homework.find((item: { id: string }) => item.id === 'hw2')).toMatchObject({ status: 'Unsubmitted', score: 0 });
  });

  it('lets instructors read all summaries, and students only their own', async () => {
    await api.call('POST', `${base()}/reports/summaries`, { headers: world.tokens.instructor });
    const all = await api.get(`${base()}/reports/summaries`, world.tokens.instructor);
    expect(all.json.data.summaries).toHaveLength(6);
    expect(all.json.data.generated_at).toEqual(expect.any(String));
    expect((await api.get(`/courses${base()}/reports/summaries`, world.tokens.instructor)).json).toEqual(all.json);
    const denied = "You don't have access to this endpoint.";
    expect((await api.get(`${base()}/reports/summaries`, world.tokens.student)).json.message).toBe(denied);
    expect((await api.get(`${base()}/reports/summaries`, world.tokens.ta)).json.message).toBe(denied);
    expect((await api.get(`${base()}/reports/summaries/${world.users.student2.userId}`, world.tokens.student)).json.message).toBe(denied);
    expect((await api.call('POST', `${base()}/reports/summaries`, { headers: world.tokens.student })).json.message).toBe(denied);
    expect((await api.call('POST', `${base()}/reports/summaries`, { headers: world.tokens.superuser })).json.message).toBe(denied);
  });

  it('replaces the previous run as a whole', async () => {
    const first = await generateSummaries((await getItems({ c: courseRef(world.course.term, world.course.course) })).c!);
    await graded('hw1', world.users.student.userId, 10, 0);
    const second = await generateSummaries((await getItems({ c: courseRef(world.course.term, world.course.course) })).c!);
    expect(await summariesOf(world.course.term, world.course.course, first.generation)).toEqual([]);
    const current = await api.get(`${base()}/reports/summaries`, world.tokens.instructor);
    expect(current.json.data.generated_at).toBe(second.generated_at);
    const scores = current.json.data.summaries.map((summary: { last_update: string }) => summary.last_update);
    expect(new Set(scores)).toEqual(new Set([second.generated_at]));
  });

  it("shows a user's summary of the current generation, also while a newer one is being written", async () => {
    const readOwn = async () =>
      (await api.get(`${base()}/reports/summaries/${world.users.student.userId}`, world.tokens.student)).json.data.last_update;
    const first = await generateSummaries((await getItems({ c: courseRef(world.course.term, world.course.course) })).c!);
    expect(await readOwn()).toBe(first.generated_at);
    // A generation written but not switched to yet (a run in progress) replaces the user's latest entry early.
    await writeSummaries(world.course.term, world.course.course, '20991231T000000000Z-abcdef', [
      { user_id: world.users.student.userId, last_update: 'not yet' },
    ]);
    expect(await readOwn()).toBe(first.generated_at);
    const second = await generateSummaries((await getItems({ c: courseRef(world.course.term, world.course.course) })).c!);
    expect(await readOwn()).toBe(second.generated_at);
  });

  it('answers an error, never a false success, when generation fails', async () => {
    // Every batch write of the new generation fails, as if the summaries table were gone.
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'BatchWriteItemCommand') throw new Error('Injected: the summaries table is gone');
        return next(args);
      },
      { step: 'initialize', name: 'summariesTableGone' },
    );
    try {
      const answer = await api.call('POST', `${base()}/reports/summaries`, {
        headers: { ...world.tokens.instructor, Prefer: 'http-status' },
      });
      expect(answer.httpStatus).toBe(500);
      expect(answer.json.status).toBe('error');
    } finally {
      dynamo().middlewareStack.remove('summariesTableGone');
    }
  });

  it('keeps the new generation when the switch to it went through but its answer was lost', async () => {
    const stack = dynamo().middlewareStack;
    const name = 'switchAppliedThenTimedOut';
    stack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if ((context as { commandName?: string }).commandName === 'UpdateItemCommand') {
          throw Object.assign(new Error('Socket timed out'), { name: 'TimeoutError' });
        }
        return result;
      },
      { step: 'initialize', name },
    );
    try {
      const { c } = await getItems({ c: courseRef(world.course.term, world.course.course) });
      await expect(generateSummaries(c!)).rejects.toThrow('Socket timed out');
    } finally {
      stack.remove(name);
    }
    const { c: after } = await getItems({ c: courseRef(world.course.term, world.course.course) });
    const current = await summariesOf(world.course.term, world.course.course, after!.summaries!.generation);
    expect(current).toHaveLength(6);
  });

  it('exports all_grades/<user_id>_summary.json files from the admin command line', async () => {
    await generateSummaries((await getItems({ c: courseRef(world.course.term, world.course.course) })).c!);
    const folder = await mkdtemp(join(tmpdir(), 'summaries-'));
    try {
      const lines: string[] = [];
      await runAdminCommand(['export-summaries', world.course.term, world.course.course, folder], (line) => lines.push(line));
      expect(lines[0]).toMatch(/^Wrote 6 summaries/);
      const files = await readdir(join(folder, 'all_grades'));
      expect(files).toContain(`${world.users.student.userId}_summary.json`);
      const summary = JSON.parse(await readFile(join(folder, 'all_grades', `${world.users.student.userId}_summary.json`), 'utf8'));
      expect(summary.user_id).toBe(world.users.student.userId);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('nightly summaries', () => {
  it('regenerates every unarchived course; one broken course neither stops the others nor hides', async () => {
    const extra = await createCourse(world.term, world.users.instructor);
    const archived = await createCourse(world.term, world.users.instructor);
    await setArchived(archived.term, archived.course, true);
    const broken = `${extra.term}/${extra.course}`;
    const report = await generateAllSummaries({
      generate: async (course) => {
        if (`${course.term}/${course.course}` === broken) throw new Error('simulated failure');
        return generateSummaries(course);
      },
    });
    expect(report.failed).toBe(1);
    expect(report.succeeded).toBe(report.courses - 1);
    const { c: archivedCourse } = await getItems({ c: courseRef(archived.term, archived.course) });
    expect(archivedCourse?.summaries).toBeUndefined();
    const { c: worldCourse } = await getItems({ c: courseRef(world.course.term, world.course.course) });
    expect(worldCourse?.summaries?.count).toBe(6);
  });

  it('runs from a scheduled event through the same function', async () => {
    const report = await generateHandler({ source: 'aws.scheduler', 'detail-type': 'Scheduled Event' }, lambdaContext());
    expect(report).toMatchObject({ failed: 0, courses: expect.any(Number), succeeded: expect.any(Number) });
  });

  it('is on the admin command line', async () => {
    const lines: string[] = [];
    await runAdminCommand(['nightly-summaries'], (line) => lines.push(line));
    expect(lines[0]).toMatch(/^Nightly summaries: \d+ of \d+ courses, \d+ summaries, 0 failed, \d+ left to a job under way\.$/);
  });
});
