import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '#infra/admin/commands.ts';
import { courseId } from '#shared/courses/course.ts';
import { dynamo } from '#shared/data/client.ts';
import { unfinishedGradebookExports } from '#shared/data/gradebook-exports.ts';
import { gradeableKey, setStudentLateness } from '#shared/data/submissions.ts';
import { unfinishedSummariesJobs } from '#shared/data/summaries.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { daysFromNow } from '../support/dates.ts';
import { uploadGradeable, vcsGradeableJson } from '../support/gradeables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/**
 * `npm run admin -- backfill` over items as an older version wrote them: a student's own
 * submission without its `byStudent` keys, team member entries without their copies, an
 * enrollment without copies nor its `bySection` key (the gradebook lists it only after). The late-day table (read through the index and the copies) shows
 * none of those submissions before, and every one after; a second run writes nothing.
 */
let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
const put = (table: keyof typeof tables, Item: Record<string, unknown>) =>
  dynamo().send(new PutCommand({ TableName: tableName(tables[table]), Item }));

async function admin(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await runAdminCommand(argv, (line) => lines.push(line));
  return lines;
}

function counts(line: string | undefined) {
  const match =
    /^Backfill: (\d+) items scanned, (\d+) updated, (\d+) already current, (\d+) skipped by a concurrent change, (\d+) without a source to copy\.$/.exec(
      line ?? '',
    );
  if (!match) throw new Error(`Not a summary line: ${line}`);
  const [scanned, updated, current, skipped, orphaned] = match.slice(1).map(Number) as [number, number, number, number, number];
  return { scanned, updated, current, skipped, orphaned };
}

/** A student's late-day table as gradeable id → [status, days late]. */
async function lateDays(persona: 'student' | 'student2') {
  const answer = await api.get(`${base()}/late-days/${world.users[persona].userId}`, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  const rows = answer.json.data.gradeables as { id: string; status: string; days_late: number | null }[];
  return Object.fromEntries(rows.map((row) => [row.id, [row.status, row.days_late]]));
}

/** Who a gradeable's gradebook lists (through the enrollments' `bySection` index). */
async function gradebookUsers() {
  const answer = await api.get(`${base()}/gradeable/solo/gradebook`, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return (answer.json.data.students as { user_id: string }[]).map((row) => row.user_id);
}

const version = (daysLate: number, submittedBy: string) => ({
  version: 1,
  submittedAt: daysFromNow(-1),
  submittedBy,
  daysLate,
  ticket: 1,
  state: 'graded',
  points: 5,
});

async function upload(id: string, team: boolean) {
  await uploadGradeable(api, world, vcsGradeableJson(id, { dueInDays: -4, lateDays: 5, team }));
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  const budget = await api.call('PUT', `${base()}/late-days`, {
    headers: { 'Content-Type': 'application/json', ...world.tokens.instructor },
    body: '{"default_student_late_days":10}',
  });
  expect(budget.json.status, budget.text).toBe('success');
  await upload('solo', false);
  await upload('pair', true);
  const { term, course } = world.course;
  const { student, student2 } = world.users;
  // As an older version wrote them: no studentKey or activeDaysLate on the student's submission...
  await put('submissions', {
    gradeableKey: gradeableKey(term, course, 'solo'),
    ownerId: student.userId,
    term,
    course,
    gradeableId: 'solo',
    highestVersion: 1,
    activeVersion: 1,
    versions: [version(3, student.userId)],
  });
  // ...member entries naming only their team, beside the team's entry and its submission...
  const pairKey = gradeableKey(term, course, 'pair');
  await put('teams', { gradeableKey: pairKey, entry: 'team#duo', teamId: 'duo', members: [student.userId, student2.userId] });
  for (const member of [student, student2]) {
    await put('teams', { gradeableKey: pairKey, entry: `member#${member.userId}`, teamId: 'duo', userId: member.userId });
  }
  await put('submissions', {
    gradeableKey: pairKey,
    ownerId: 'duo',
    term,
    course,
    gradeableId: 'pair',
    highestVersion: 1,
    activeVersion: 1,
    versions: [version(2, student2.userId)],
  });
  // ...and an enrollment without its copies, nor its place in the gradebook's order.
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(tables.enrollments),
      Key: { courseId: courseId(term, course), userId: student.userId },
      UpdateExpression: 'REMOVE memberCopy, listingCopy, sectionOrder',
    }),
  );
}, 120_000);
afterAll(() => api.close());

describe('admin backfill', () => {
  it('lists older submissions in the late-day tables, fills enrollment copies, and writes nothing the second time', async () => {
    expect(await lateDays('student')).toEqual({ solo: ['Unsubmitted', null], pair: ['Unsubmitted', null] });
    expect(await lateDays('student2')).toEqual({ solo: ['Unsubmitted', null], pair: ['Unsubmitted', null] });
    expect(await gradebookUsers()).toEqual([world.users.student2.userId]);

    const first = counts((await admin('backfill'))[0]);
    // The student's submission, both member entries, the stripped enrollment's copies and its place.
    expect(first).toMatchObject({ updated: 5, skipped: 0, orphaned: 0 });
    expect(first.current).toBe(first.scanned - 5);
    expect(await gradebookUsers()).toEqual([world.users.student.userId, world.users.student2.userId]);

    expect(await lateDays('student')).toEqual({ solo: ['Late', 3], pair: ['Late', 2] });
    expect(await lateDays('student2')).toEqual({ solo: ['Unsubmitted', null], pair: ['Late', 2] });
    const { Item: enrollment } = await dynamo().send(
      new GetCommand({
        TableName: tableName(tables.enrollments),
        Key: { courseId: courseId(world.course.term, world.course.course), userId: world.users.student.userId },
      }),
    );
    expect(enrollment).toMatchObject({
      memberCopy: { v: 1, givenName: world.users.student.givenName, email: world.users.student.email },
      listingCopy: { v: 1, displayName: 'Test Course', archived: false, termName: 'Fall 2026' },
    });
    // The member entries name their team's members now: no read of the team's entry is needed.
    const { Item: member } = await dynamo().send(
      new GetCommand({
        TableName: tableName(tables.teams),
        Key: { gradeableKey: gradeableKey(world.course.term, world.course.course, 'pair'), entry: `member#${world.users.student.userId}` },
      }),
    );
    expect(member?.members).toEqual([world.users.student.userId, world.users.student2.userId]);

    const second = counts((await admin('backfill'))[0]);
    expect(second).toEqual({ scanned: first.scanned, updated: 0, current: first.scanned, skipped: 0, orphaned: 0 });
  });

  it('never writes over a submission whose active version changed since it was read', async () => {
    const { term, course } = world.course;
    const { student2 } = world.users;
    await put('submissions', {
      gradeableKey: gradeableKey(term, course, 'solo'),
      ownerId: student2.userId,
      term,
      course,
      gradeableId: 'solo',
      highestVersion: 2,
      activeVersion: 2,
      versions: [version(1, student2.userId), { ...version(4, student2.userId), version: 2 }],
    });
    // Read when version 1 was active: the write is refused, the item keeps no stale copy.
    const stale = setStudentLateness({ term, course, gradeableId: 'solo', ownerId: student2.userId }, { activeVersion: 1, daysLate: 1 });
    await expect(dynamo().send(new UpdateCommand(stale.Update as never))).rejects.toThrow(/conditional request failed/i);
    expect(await lateDays('student2')).toMatchObject({ solo: ['Unsubmitted', null] });
    expect(counts((await admin('backfill'))[0])).toMatchObject({ updated: 1, skipped: 0 });
    expect(await lateDays('student2')).toMatchObject({ solo: ['Late', 4] });
  });

  it('puts course jobs an older version left queued or running where the sweep finds them, and leaves ended ones out', async () => {
    const { term, course } = world.course;
    const id = courseId(term, course);
    const job = (state: string) => ({ term, course, state, createdAt: daysFromNow(-1), attempts: state === 'queued' ? 0 : 1 });
    // As written before the index: no `unfinished` attribute.
    await put('summaries', { courseId: `${id}#exports`, entry: 'export#old-queued', ...job('queued') });
    await put('summaries', { courseId: `${id}#exports`, entry: 'export#old-done', ...job('done') });
    await put('summaries', { courseId: `${id}#jobs`, entry: 'job#old-running', ...job('running'), leaseUntil: 1 });
    const listed = async () => ({
      exports: (await unfinishedGradebookExports()).map(({ exportId }) => exportId),
      jobs: (await unfinishedSummariesJobs()).map(({ jobId }) => jobId),
    });
    expect(await listed()).toEqual({ exports: [], jobs: [] });

    expect(counts((await admin('backfill'))[0])).toMatchObject({ updated: 2, skipped: 0 });
    expect(await listed()).toEqual({ exports: ['old-queued'], jobs: ['old-running'] });
    expect(counts((await admin('backfill'))[0])).toMatchObject({ updated: 0, skipped: 0 });
  });

  it("lists similarity runs written before runs were listed in their gradeable's list", async () => {
    const path = `${base()}/gradeable/solo/similarity`;
    const posted = await api.postJson(path, {}, world.tokens.instructor);
    expect(posted.json.status, posted.text).toBe('success');
    const runId = posted.json.data.run_id as string;
    // As an older version wrote it: the run without its listing entry.
    const partition = `${courseId(world.course.term, world.course.course)}#similarity`;
    const { Items = [] } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(tables.summaries),
        KeyConditionExpression: 'courseId = :partition AND begins_with(entry, :listed)',
        ExpressionAttributeValues: { ':partition': partition, ':listed': 'similarity-listed#' },
      }),
    );
    expect(Items).toHaveLength(1);
    await dynamo().send(
      new DeleteCommand({ TableName: tableName(tables.summaries), Key: { courseId: partition, entry: Items[0]?.entry } }),
    );
    const listed = async () => {
      const answer = await api.get(path, world.tokens.instructor);
      expect(answer.json.status, answer.text).toBe('success');
      return (answer.json.data as { run_id: string }[]).map(({ run_id }) => run_id);
    };
    expect(await listed()).toEqual([]);

    expect(counts((await admin('backfill'))[0])).toMatchObject({ updated: 1, skipped: 0 });
    expect(await listed()).toEqual([runId]);
    expect(counts((await admin('backfill'))[0])).toMatchObject({ updated: 0, skipped: 0 });
  });
});
