import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { openDates } from '../support/dates.ts';
import { greets, runs, uploadGradeable } from '../support/gradeables.ts';
import { rubricComponent } from '../support/rubric.ts';
import { makeZip } from '../support/zip.ts';

/**
 * Regrading a gradeable that takes files, over HTTP: versions graded against a broken test case
 * are graded again from their stored files once the instructor fixes it, with the answers and job
 * objects of a VCS regrade. The local API with its worker, the runner and bubblewrap, as
 * `npm start` runs them; the files in the local S3 endpoint.
 */
let api: TestApi;
let world: CourseWorld;
const gradeableId = uniqueCode('files');
const base = () => `/${world.course.term}/${world.course.course}`;
const gradeablePath = () => `${base()}/gradeable/${gradeableId}`;

/** Runs (2 points) and Greets (3 points), whose expected output is wrong: nobody can pass it. */
const brokenTestCases = [runs(2), { name: 'Greets', command: 'sh hello.sh', points_available: 3, expect: { stdout: 'Hello World\n' } }];

beforeAll(async () => {
  api = await startTestApi({ workers: 1 });
  world = await createCourseWorld(api);
  await uploadGradeable(api, world, {
    id: gradeableId,
    title: 'Homework: Hello (files)',
    type: 'Electronic File',
    dates: openDates(),
    autograding: { test_cases: brokenTestCases },
  });
}, 60_000);
afterAll(() => api?.close());

type Persona = 'student' | 'student2';

function multipart(files: readonly { name: string; content: Buffer | string }[]): FormData {
  const form = new FormData();
  for (const file of files) form.append('files', new Blob([file.content]), file.name);
  return form;
}

async function submit(persona: Persona, files: readonly { name: string; content: Buffer | string }[]) {
  const answer = await api.call('POST', `${gradeablePath()}/files`, { headers: world.tokens[persona], body: multipart(files) });
  expect(answer.json.status, answer.text).toBe('success');
}

const attempts = async (persona: Persona) =>
  (await api.get(`${gradeablePath()}/attempts?user_id=${world.users[persona].userId}`, world.tokens.instructor)).json.data as {
    version: number;
    grading_state: string;
    points: number;
  }[];

async function regrade(fields: Record<string, string>) {
  const answer = await api.postForm(`${gradeablePath()}/regrade`, fields, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { regrade_id: string };
}

/** The regrade's job object once it is done. */
async function done(regradeId: string) {
  for (let poll = 0; poll < 600; poll++) {
    const job = (await api.get(`${base()}/regrades/${regradeId}`, world.tokens.instructor)).json.data;
    if (job.state === 'done') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`regrade ${regradeId} not done in time`);
}

async function graded(personas: readonly Persona[]) {
  for (let poll = 0; poll < 600; poll++) {
    const all = await Promise.all(personas.map(attempts));
    if (all.every((list) => list.every((attempt) => attempt.grading_state === 'graded'))) return all;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('not graded in time');
}

/** Each version's points, newest first. */
const points = async (persona: Persona) => (await attempts(persona)).map((attempt) => [attempt.version, attempt.points]);

describe('regrading a gradeable that takes files', () => {
  it('grades the versions again from their stored files once a test case is fixed: one version, then every active version', async () => {
    // student: a rude version 1, then a polite version 2 in a zip; student2: one polite version.
    await submit('student', [{ name: 'hello.sh', content: 'echo "Goodbye"\n' }]);
    await submit('student', [{ name: 'work.zip', content: makeZip([{ name: 'hello.sh', content: 'echo "Hello, World!"\n' }]) }]);
    await submit('student2', [{ name: 'hello.sh', content: 'echo "Hello, World!"\n' }]);
    await graded(['student', 'student2']);
    // Against the broken test case nobody earns Greets' 3 points.
    expect(await points('student')).toEqual([
      [2, 2],
      [1, 2],
    ]);
    expect(await points('student2')).toEqual([[1, 2]]);

    // The instructor fixes the test case.
    const downloaded = await api.get(`${base()}/${gradeableId}/download`, world.tokens.instructor);
    const fixed = { ...downloaded.json.data, autograding: { ...downloaded.json.data.autograding, test_cases: [runs(2), greets(3)] } };
    const replaced = await api.call('PUT', gradeablePath(), {
      headers: { 'Content-Type': 'application/json', 'If-Match': downloaded.headers.get('etag') ?? '', ...world.tokens.instructor },
      body: JSON.stringify(fixed),
    });
    expect(replaced.json.status, replaced.text).toBe('success');

    // One version: student's version 1 (not the active one), on its own files: still rude.
    const one = await regrade({ user_id: world.users.student.userId, version_to_regrade: '1' });
    expect(one).toMatchObject({
      gradeable_id: gradeableId,
      total: 1,
      queued: 1,
      skipped: 0,
      message: '1 submission added to queue for regrading',
    });
    expect(await done(one.regrade_id)).toMatchObject({ state: 'done', queued: 1, graded: 1, failed: 0 });
    expect(await points('student')).toEqual([
      [2, 2],
      [1, 2],
    ]);

    // Every active version: student's zip and student2's script, both polite.
    const all = await regrade({});
    expect(all).toMatchObject({ total: 2, queued: 2, skipped: 0, message: '2 submissions added to queue for regrading' });
    expect(await done(all.regrade_id)).toMatchObject({ state: 'done', total: 2, queued: 2, graded: 2, failed: 0 });
    expect(await points('student')).toEqual([
      [2, 5],
      [1, 2],
    ]);
    expect(await points('student2')).toEqual([[1, 5]]);
    const values = (await api.get(`${gradeablePath()}/values`, world.tokens.student)).json.data;
    expect(values).toMatchObject({ highest_version: 2, total_points: 5, autograding_complete: true });
  }, 240_000);

  it('refuses a gradeable that is graded by hand, saying why', async () => {
    const id = uniqueCode('quiz');
    await uploadGradeable(api, world, { id, title: 'Quiz', type: 'Numeric', rubric: [rubricComponent('Q1')] });
    const answer = await api.postForm(`${base()}/gradeable/${id}/regrade`, {}, world.tokens.instructor);
    expect(answer.json).toEqual({
      status: 'fail',
      message: 'Regrading only supports Electronic File gradeables: a Numeric gradeable is graded by hand, never automatically.',
    });
  });
});
