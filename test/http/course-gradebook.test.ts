/**
 * The course's gradebook over HTTP: a row per student with every gradeable released to staff,
 * agreeing with each gradeable's own gradebook; who sees which students; paging; and its CSV
 * export, written by the summaries worker from its queue and downloaded through a presigned link
 * that only its requester gets, its cells safe to open in a spreadsheet.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#shared/data/client.ts';
import { createGradebookExport, gradebookExportRef } from '#shared/data/gradebook-exports.ts';
import { getItems } from '#shared/data/items.ts';
import { newGradebookExportId, runGradebookExport } from '#shared/gradebook/exports.ts';
import { resumeQueues } from '#infra/local/recovery.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { createCourseWorld, type CourseWorld, type Persona } from '../support/courses.ts';
import { daysFromNow } from '../support/dates.ts';
import { greets, publicGradeableJson, runs, uploadGradeable, vcsGradeableJson } from '../support/gradeables.ts';
import { setLateDayBudget } from '../support/late-days.ts';
import { rubricComponent } from '../support/rubric.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { gradedSubmissionItem, testCase } from '../support/submissions.ts';

let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;

interface Cell {
  gradeable_id: string;
  score: number;
  max: number;
  days_late: number;
  status: string;
}
interface Row {
  user_id: string;
  first_name: string;
  last_name: string;
  registration_section: string;
  rotating_section: string | null;
  late_days_used: number;
  late_days_remaining: number;
  gradeables: Cell[];
}

const get = async (path: string, persona: Persona) => {
  const answer = await api.get(`${base()}${path}`, world.tokens[persona]);
  return answer;
};

const book = async (persona: Persona, query = '') => {
  const answer = await get(`/gradebook${query}`, persona);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { gradeables: { id: string; title: string; max: number }[]; students: Row[]; next_cursor: string | null };
};

const postExport = (persona: Persona, body: unknown) =>
  api.postJson(`${base()}/gradebook/exports`, body, { ...world.tokens[persona], Prefer: 'http-status' });

/** Reads the export until it ends (done or failed), each answer checked. */
async function untilEnded(exportId: string, persona: Persona) {
  for (let attempt = 0; attempt < 600; attempt++) {
    const answer = await get(`/gradebook/exports/${exportId}`, persona);
    expect(answer.json.status, answer.text).toBe('success');
    if (answer.json.data.status === 'done' || answer.json.data.status === 'failed') return answer.json.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`export ${exportId} did not end`);
}

/** An export asked for and run to its end, its CSV downloaded through its link and parsed. */
async function exported(persona: Persona, body: Record<string, unknown> = { format: 'csv' }) {
  const posted = await postExport(persona, body);
  expect(posted.json.status, posted.text).toBe('success');
  expect(posted.json.data.status).toBe('queued');
  const done = await untilEnded(posted.json.data.export_id as string, persona);
  expect(done.status, JSON.stringify(done)).toBe('done');
  const response = await s3Fetch(done.url as string);
  expect(response.status).toBe(200);
  const text = await response.text();
  const records = parse(text, { relax_column_count: false }) as string[][];
  return { done, text, records };
}

/** S3 itself, not the API: its answers have no contract to check. */
// eslint-disable-next-line no-restricted-globals -- the local S3 endpoint, not the API
const s3Fetch = (url: string | URL): Promise<Response> => fetch(url);

const putItem = (table: keyof typeof tables, item: Record<string, unknown>) =>
  dynamo().send(new PutCommand({ TableName: tableName(tables[table]), Item: item }));

const HOSTILE_GIVEN = '=HYPERLINK("http://evil.example","click")';
const HOSTILE_FAMILY = '+1,2\r\n@SUM(A1)';

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  const { term, course } = world.course;
  // hw1: 5 visible points, 3 hidden, 2 of extra credit, and a rubric of 4: 12 points at most, due 10 days ago.
  await uploadGradeable(
    api,
    world,
    publicGradeableJson('hw1', {
      dates: {
        ta_view_start_date: daysFromNow(-20),
        submission_open_date: daysFromNow(-19),
        submission_due_date: daysFromNow(-10),
        late_days: 2,
      },
      autograding: { test_cases: [runs(5), { ...greets(3), is_hidden: true }, { ...runs(2), name: 'Bonus', is_extra_credit: true }] },
      rubric: [rubricComponent('Style', { max_value: 4, upper_clamp: 4 })],
    }),
  );
  // hw2: due before hw1 (so listed first), 2 late days allowed.
  await uploadGradeable(api, world, vcsGradeableJson('hw2', { dueInDays: -12, lateDays: 2 }));
  // Not yet released to staff: in no gradebook.
  await uploadGradeable(
    api,
    world,
    publicGradeableJson('future', { dates: { ta_view_start_date: daysFromNow(5), submission_open_date: daysFromNow(6) } }),
  );
  await setLateDayBudget(api, world, 3);
  const student = world.users.student.userId;
  const student2 = world.users.student2.userId;
  // The student: hw1 graded (5 + 3 hidden of 8 received, 1 day late); hw2 2 days late.
  await putItem('submissions', {
    ...gradedSubmissionItem({ term, course, gradeableId: 'hw1', userId: student, points: 8, daysLate: 1 }),
    activeResults: { version: 1, testCases: [testCase(5, { points_available: 5 }), testCase(3, { points_available: 3, hidden: true })] },
  });
  await putItem('submissions', gradedSubmissionItem({ term, course, gradeableId: 'hw2', userId: student, points: 0, daysLate: 2 }));
  // student2: hw1 still queued; nothing of hw2.
  const queued = gradedSubmissionItem({ term, course, gradeableId: 'hw1', userId: student2, points: 0 });
  await putItem('submissions', {
    ...queued,
    versions: (queued.versions as Record<string, unknown>[]).map((version) => ({ ...version, state: 'queued' })),
  });
  // The student's names are theirs to choose: formulas, a comma, a line break.
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(tables.users),
      Key: { userId: student },
      UpdateExpression: 'SET givenName = :given, familyName = :family',
      ExpressionAttributeValues: { ':given': HOSTILE_GIVEN, ':family': HOSTILE_FAMILY },
    }),
  );
}, 120_000);
afterAll(() => api.close());

describe("the course's gradebook", () => {
  it("lists each student with every gradeable released to staff, in the course's order, as each gradeable's gradebook shows it", async () => {
    const data = await book('instructor');
    expect(data.gradeables).toEqual([
      { id: 'hw2', title: 'hw2', max: 0 },
      { id: 'hw1', title: 'hw1', max: 12 },
    ]);
    expect(data.students.map((row) => row.user_id)).toEqual([world.users.student.userId, world.users.student2.userId]);
    const [first, second] = data.students as [Row, Row];
    expect(first).toMatchObject({
      first_name: HOSTILE_GIVEN,
      last_name: HOSTILE_FAMILY,
      registration_section: '1',
      rotating_section: null,
      // hw2's 2 days, then hw1's 1: the budget of 3 spent.
      late_days_used: 3,
      late_days_remaining: 0,
    });
    expect(first.gradeables).toEqual([
      { gradeable_id: 'hw2', score: 0, max: 0, days_late: 2, status: 'graded' },
      { gradeable_id: 'hw1', score: 8, max: 12, days_late: 1, status: 'graded' },
    ]);
    expect(second.gradeables).toEqual([
      { gradeable_id: 'hw2', score: 0, max: 0, days_late: 0, status: 'no_submission' },
      { gradeable_id: 'hw1', score: 0, max: 12, days_late: 0, status: 'queued' },
    ]);
    expect(second).toMatchObject({ late_days_used: 0, late_days_remaining: 3 });
    // Each score and days late is the gradeable's own gradebook's.
    for (const id of ['hw1', 'hw2']) {
      const own = await get(`/gradeable/${id}/gradebook`, 'instructor');
      expect(own.json.status, own.text).toBe('success');
      for (const row of own.json.data.students as { user_id: string; total_score: number; days_late: number }[]) {
        const cell = data.students
          .find((student) => student.user_id === row.user_id)
          ?.gradeables.find((entry) => entry.gradeable_id === id);
        expect(cell, `${id} ${row.user_id}`).toMatchObject({ score: row.total_score, days_late: row.days_late });
      }
    }
  });

  it('shows a limited access grader their sections only, a full access grader all, and refuses a student', async () => {
    expect((await book('mentor')).students.map((row) => row.user_id)).toEqual([world.users.student.userId]);
    expect((await book('ta')).students.map((row) => row.user_id)).toEqual([world.users.student.userId, world.users.student2.userId]);
    const refused = await get('/gradebook', 'student');
    expect(refused.json).toMatchObject({ status: 'fail', message: "You don't have access to this endpoint." });
  });

  it('pages by section then user, with a cursor and a Link to the next page', async () => {
    const first = await get('/gradebook?page_size=1', 'instructor');
    expect(first.json.data.students.map((row: Row) => row.user_id)).toEqual([world.users.student.userId]);
    const cursor = first.json.data.next_cursor as string;
    expect(first.headers.get('link')).toContain(`cursor=${cursor}`);
    const second = await book('instructor', `?page_size=1&cursor=${cursor}`);
    expect(second.students.map((row) => row.user_id)).toEqual([world.users.student2.userId]);
    expect(second.next_cursor).toBeNull();
    const bad = await get('/gradebook?cursor=nonsense', 'instructor');
    expect(bad.json).toMatchObject({ status: 'fail', message: 'The cursor is not one this gradebook gave out.' });
  });
});

describe("the gradebook's CSV export", () => {
  it('is written on the queue; its link downloads every student, each text cell safe in a spreadsheet', async () => {
    const { done, text, records } = await exported('instructor');
    expect(done).toMatchObject({ format: 'csv', students: 2, gradeable_ids: null, sections: null, bytes: Buffer.byteLength(text) });
    expect(records[0]).toEqual([
      'user_id',
      'first_name',
      'last_name',
      'registration_section',
      'rotating_section',
      'late_days_used',
      'late_days_remaining',
      ...['hw2', 'hw1'].flatMap((id) => ['score', 'max', 'days_late', 'status'].map((column) => `${id} ${column}`)),
    ]);
    expect(records[1]).toEqual([
      world.users.student.userId,
      `'${HOSTILE_GIVEN}`,
      `'${HOSTILE_FAMILY}`,
      '1',
      '',
      '3',
      '0',
      ...['0', '0', '2', 'graded'],
      ...['8', '12', '1', 'graded'],
    ]);
    expect(records[2]).toEqual([
      world.users.student2.userId,
      'Given',
      expect.any(String),
      '2',
      '',
      '0',
      '3',
      '0',
      '0',
      '0',
      'no_submission',
      '0',
      '12',
      '0',
      'queued',
    ]);
    // RFC 4180: records end in CRLF; the quote is doubled and the line break kept inside quotes.
    expect(text).toContain(`,"'=HYPERLINK(""http://evil.example"",""click"")","'+1,2\r\n@SUM(A1)",`);
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('links for 15 minutes, a link no one can stretch, and only to whoever asked for it', async () => {
    const { done } = await exported('instructor', { format: 'csv', gradeable_ids: ['hw1'] });
    const url = new URL(done.url as string);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    url.searchParams.set('X-Amz-Expires', '604800');
    expect((await s3Fetch(url)).status).toBe(403);
    for (const other of ['ta', 'mentor', 'otherInstructor'] as const) {
      const answer = await get(`/gradebook/exports/${done.export_id}`, other);
      expect(answer.json.status, `${other}: ${answer.text}`).toBe('fail');
      if (other !== 'otherInstructor') expect(answer.json.message).toBe(`No gradebook export ${done.export_id} of yours in this course.`);
    }
  });

  it("covers a limited access grader's sections only, and the gradeables asked for in their order", async () => {
    const { done, records } = await exported('mentor', { format: 'csv', gradeable_ids: ['hw1', 'hw2'] });
    expect(done).toMatchObject({ students: 1, sections: ['1'], gradeable_ids: ['hw1', 'hw2'] });
    expect(records.map((record) => record[0])).toEqual(['user_id', world.users.student.userId]);
    expect(records[0]!.slice(7, 9)).toEqual(['hw1 score', 'hw1 max']);
    // The instructor cannot read the grader's export either.
    const theirs = await get(`/gradebook/exports/${done.export_id}`, 'instructor');
    expect(theirs.json).toMatchObject({ status: 'fail', message: `No gradebook export ${done.export_id} of yours in this course.` });
  });

  it('refuses what it cannot export, saying why', async () => {
    const refusals: [unknown, string][] = [
      [{}, 'Give format: csv.'],
      [{ format: ' ' }, 'Give format: csv.'],
      [{ format: 'xlsx' }, 'The gradebook is exported as csv only, not xlsx.'],
      [{ format: 'csv', gradeable_ids: ['hw1', 'nope'] }, 'No gradeable nope in this course to export.'],
      // Not yet released to staff: the mentor cannot name it (the instructor can).
      [{ format: 'csv', gradeable_ids: [7] }, 'The field gradeable_ids must be a list of gradeable ids.'],
      [
        { format: 'csv', gradeable_ids: Array.from({ length: 101 }, (_, index) => `g${index}`) },
        'The field gradeable_ids must be a list of gradeable ids.',
      ],
      [{ format: ['csv'] }, 'The field format must be a string.'],
    ];
    for (const [body, message] of refusals) {
      const answer = await postExport('instructor', body);
      expect(answer.json, JSON.stringify(body)).toMatchObject({ status: 'fail', message });
      expect(answer.httpStatus).toBeGreaterThanOrEqual(400);
    }
    const future = await postExport('mentor', { format: 'csv', gradeable_ids: ['future'] });
    expect(future.json).toMatchObject({ status: 'fail', message: 'No gradeable future in this course to export.' });
    expect((await postExport('student', { format: 'csv' })).json).toMatchObject({ status: 'fail' });
    const none = await get('/gradebook/exports/ge_AAAAAAAAAAAAAAAAAAAAAA', 'instructor');
    expect(none.json).toMatchObject({ status: 'fail', message: 'No gradebook export ge_AAAAAAAAAAAAAAAAAAAAAA of yours in this course.' });
    const malformed = await get('/gradebook/exports/nonsense', 'instructor');
    expect(malformed.json).toMatchObject({ status: 'fail', message: 'No gradebook export nonsense of yours in this course.' });
  });
});

describe("an export's deliveries", () => {
  it('write it once however many arrive together: one claims it, the others leave it be', async () => {
    const { term, course } = world.course;
    for (let round = 0; round < 8; round++) {
      const posted = await postExport('instructor', { format: 'csv', gradeable_ids: ['hw1'] });
      expect(posted.json.status, posted.text).toBe('success');
      const exportId = posted.json.data.export_id as string;
      // The queue's own delivery races three more of the same message.
      const message = { kind: 'gradebook-export', term, course, exportId } as const;
      await Promise.all([1, 2, 3].map(() => runGradebookExport(message)));
      const done = await untilEnded(exportId, 'instructor');
      expect(done).toMatchObject({ status: 'done', students: 2 });
      const { record } = await getItems({ record: gradebookExportRef(term, course, exportId) });
      expect(record, `round ${round}`).toMatchObject({ state: 'done', attempts: 1, students: 2 });
    }
  });

  it('are sent again when npm start starts after a stop: a queued export, and one whose running delivery died, both end', async () => {
    const { term, course } = world.course;
    // As a stopped server leaves them: written, their messages gone with its in-process queue.
    const record = (state: 'queued' | 'running') => ({
      exportId: newGradebookExportId(),
      term,
      course,
      format: 'csv' as const,
      state,
      requestedBy: world.users.instructor.userId,
      gradeableIds: ['hw1'],
      createdAt: new Date().toISOString(),
      attempts: state === 'running' ? 1 : 0,
      ...(state === 'running' ? { leaseUntil: Date.now() + 1_000 } : {}),
    });
    const queued = record('queued');
    const running = record('running');
    await createGradebookExport(queued);
    await createGradebookExport(running);
    const resumed = await resumeQueues(api.server, 0);
    expect(resumed.courseJobs).toBe(2);
    for (const { exportId } of [queued, running]) {
      expect(await untilEnded(exportId, 'instructor'), exportId).toMatchObject({ status: 'done', students: 2 });
    }
    expect((await resumeQueues(api.server, 0)).courseJobs).toBe(0);
  });
});
