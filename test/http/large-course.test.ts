/**
 * A 5,000-student course with 40 released gradeables. Every list answer (each page) stays
 * under Lambda's 6 MB, and following the `Link` headers returns every student exactly once. The
 * course is written straight into DynamoDB Local in batches (users, enrollments, one graded
 * submission per student of SUBMITTED gradeables), then its summaries are generated as a job on
 * the summaries queue: the request answers at once, the job's progress is read
 * until it is done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Enrollment } from '#shared/courses/course.ts';
import { batchWrite } from '#shared/data/batch-write.ts';
import { enrollmentItem } from '#shared/data/enrollments.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { userItem } from '#shared/data/users.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { gradedSubmissionItem } from '../support/submissions.ts';
import { mark, rubricComponent } from '../support/rubric.ts';
import { enrollment } from '../support/enrollments.ts';
import { publicGradeableJson, publicVcs } from '../support/gradeables.ts';

const STUDENTS = 5_000;
const GRADEABLES = 40;
/** Gradeables every student submitted (graded); the others count as Unsubmitted, in summaries of about the same size. */
const SUBMITTED = 10;
/** Lambda's limit on a synchronous answer. */
const LAMBDA_LIMIT = 6 * 1024 * 1024;
const DAY = 86_400_000;

let api: TestApi;
let world: CourseWorld;
const base = () => `/${world.course.term}/${world.course.course}`;
const studentIds = Array.from({ length: STUDENTS }, (_, index) => `big_${String(index).padStart(5, '0')}`);
const gradeableIds = Array.from({ length: GRADEABLES }, (_, index) => `hw${String(index + 1).padStart(2, '0')}`);
const timings: Record<string, number> = {};

function gradeable(id: string, now: Date): Record<string, unknown> {
  const at = (days: number) => new Date(Math.floor(now.getTime() / 1000) * 1000 + days * DAY).toISOString();
  return publicGradeableJson(id, {
    title: `Homework ${id}`,
    syllabus_bucket: 'homework',
    ta_grading: true,
    vcs: publicVcs('org/hw-{$user_id}'),
    dates: {
      ta_view_start_date: at(-42),
      submission_open_date: at(-41),
      submission_due_date: at(-33),
      grade_start_date: at(-32),
      grade_due_date: at(-26),
      grade_released_date: at(-25),
      late_submission_allowed: true,
      late_days: 2,
    },
    rubric: [1, 2, 3, 4].map((n) => rubricComponent(`Part ${n}`, { marks: [mark(1, `Correct ${n}`, false)] })),
    autograding: {
      test_cases: [
        { name: 'Program runs', command: 'sh hello.sh', points_available: 2, expect: { exit_code: 0 } },
        { name: 'Prints a greeting', command: 'sh hello.sh', points_available: 3, expect: { stdout_contains: 'Hello' } },
      ],
    },
  });
}

/** The students, their enrollments and a graded submission of SUBMITTED gradeables, in batches. */
async function buildCourse(now: Date) {
  for (const id of gradeableIds) await uploadGradeable(world.course, gradeable(id, now), now);
  const writes = studentIds.flatMap((userId, index) => {
    const member: Enrollment = enrollment(userId, {
      term: world.course.term,
      course: world.course.course,
      registrationSection: String((index % 20) + 1),
    });
    return [
      {
        tableName: tableName(tables.users),
        request: {
          PutRequest: {
            Item: userItem({
              userId,
              givenName: `Given${index}`,
              familyName: `Family${index}`,
              email: `${userId}@example.edu`,
              accessLevel: 'user',
            }),
          },
        },
      },
      { tableName: tableName(tables.enrollments), request: { PutRequest: { Item: enrollmentItem(member) } } },
      ...gradeableIds.slice(0, SUBMITTED).map((gradeableId) => ({
        tableName: tableName(tables.submissions),
        request: {
          PutRequest: {
            Item: gradedSubmissionItem({
              term: world.course.term,
              course: world.course.course,
              gradeableId,
              userId,
              points: index % 6,
              submittedDaysFromNow: -35,
            }),
          },
        },
      })),
    ];
  });
  await batchWrite(writes, { parallel: 8 });
}

/** Every page of a list, following `Link: <…>; rel="next"`; each answer checked against Lambda's limit. */
async function allPages(path: string, token: Record<string, string>): Promise<{ pages: Answer[]; largest: number }> {
  const pages: Answer[] = [];
  let next: string | undefined = path;
  let largest = 0;
  while (next !== undefined) {
    const answer = await api.get(next, token);
    expect(answer.json.status, answer.text.slice(0, 300)).toBe('success');
    // What Lambda would answer: the body as a JSON string inside its response object.
    const lambdaBytes = Buffer.byteLength(
      JSON.stringify({ statusCode: 200, headers: Object.fromEntries(answer.headers), body: answer.text }),
    );
    largest = Math.max(largest, lambdaBytes);
    expect(lambdaBytes).toBeLessThan(LAMBDA_LIMIT);
    pages.push(answer);
    const link = answer.headers.get('link');
    const target = link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    next = target === undefined ? undefined : target.replace(/^\/api/, '');
    expect(pages.length).toBeLessThan(1_000);
  }
  return { pages, largest };
}

const once = (ids: readonly string[]) => {
  expect(ids.length).toBe(new Set(ids).size);
  return new Set(ids);
};

beforeAll(async () => {
  api = await startTestApi();
  world = await createCourseWorld(api);
  const started = performance.now();
  await buildCourse(new Date());
  timings.build = performance.now() - started;
}, 300_000);
afterAll(() => api.close());

describe(`a course of ${STUDENTS.toLocaleString('en')} students × ${GRADEABLES} released gradeables`, () => {
  it('is built in well under a minute', () => {
    console.info(`large course: built in ${(timings.build ?? 0) / 1000} s`);
    expect(timings.build).toBeLessThan(60_000);
  });

  it('answers the users and graders lists whole by default, and in pages when asked, every answer under 6 MB', async () => {
    const whole = await api.get(`${base()}/users`, world.tokens.instructor);
    expect(whole.headers.get('link')).toBeNull();
    const wholeIds = (whole.json.data as { user_id: string }[]).map((user) => user.user_id);
    expect(once(wholeIds)).toEqual(new Set([...studentIds, ...wholeIds.filter((id) => !id.startsWith('big_'))]));
    console.info(`large course: users list ${whole.text.length} bytes (${Math.round(whole.text.length / wholeIds.length)} a user)`);
    const { pages } = await allPages(`${base()}/users?page_size=500`, world.tokens.instructor);
    const paged = pages.flatMap((page) => (page.json.data as { user_id: string }[]).map((user) => user.user_id));
    expect(paged).toEqual(wholeIds);
    expect(pages.length).toBe(Math.ceil(wholeIds.length / 500));
    const graders = await allPages(`${base()}/graders?page_size=1`, world.tokens.instructor);
    expect(graders.pages.length).toBeGreaterThan(1);
    const wholeGraders = await api.get(`${base()}/graders`, world.tokens.instructor);
    expect(graders.pages.flatMap((page) => page.json.data)).toEqual(wholeGraders.json.data);
  }, 120_000);

  it("pages a gradeable's gradebook, every student once", async () => {
    const { pages, largest } = await allPages(`${base()}/gradeable/hw01/gradebook?page_size=500`, world.tokens.instructor);
    const ids = pages.flatMap((page) => (page.json.data.students as { user_id: string }[]).map((row) => row.user_id));
    // The course's own two students with a section are in it too.
    expect(once(ids)).toEqual(new Set([...studentIds, world.users.student.userId, world.users.student2.userId]));
    console.info(`large course: gradebook in ${pages.length} pages, the largest ${largest} bytes as a Lambda answer`);
  }, 180_000);

  it('generates the summaries as a job, answered at once, and pages them, every student once, every page under 6 MB', async () => {
    const started = performance.now();
    const posted = await api.call('POST', `${base()}/reports/summaries`, { headers: world.tokens.instructor });
    timings.post = performance.now() - started;
    expect(posted.json.status, posted.text.slice(0, 300)).toBe('success');
    const job = posted.json.data as { job_id: string; state: string; progress: { done: number; total: number } };
    expect(job.state).toBe('queued');
    expect(job.progress.total).toBeGreaterThan(STUDENTS);
    expect(timings.post).toBeLessThan(5_000);
    const seen: { state: string; done: number }[] = [];
    let state = job.state;
    while (state !== 'done' && state !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const status = await api.get(`${base()}/reports/summaries/jobs/${job.job_id}`, world.tokens.instructor);
      expect(status.json.status, status.text.slice(0, 300)).toBe('success');
      state = status.json.data.state as string;
      seen.push({ state, done: status.json.data.progress.done as number });
      expect(performance.now() - started).toBeLessThan(240_000);
    }
    timings.generate = performance.now() - started;
    expect(state).toBe('done');
    // Progress moved page by page while it ran.
    expect(seen.some(({ state: seenState, done }) => seenState === 'running' && done > 0 && done < job.progress.total)).toBe(true);
    console.info(
      `large course: POST answered a job in ${Math.round(timings.post)} ms; summaries generated in ${timings.generate / 1000} s (${seen.length} polls)`,
    );
    const { pages, largest } = await allPages(`${base()}/reports/summaries`, world.tokens.instructor);
    const summaries = pages.flatMap((page) => page.json.data.summaries as { user_id: string }[]);
    const ids = summaries.map((summary) => summary.user_id);
    expect(once(ids)).toEqual(new Set([...studentIds, ...ids.filter((id) => !id.startsWith('big_'))]));
    const bytes = Buffer.byteLength(JSON.stringify(summaries));
    console.info(
      `large course: ${summaries.length} summaries, ${Math.round(bytes / summaries.length)} bytes each, ${pages.length} pages, the largest ${largest} bytes as a Lambda answer`,
    );
  }, 300_000);
});
