import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, success, type ApiClient } from '#client/index.ts';
import { CLIENT_TYPES_MODULE, clientTypes } from '#infra/client-types.ts';
import type { GitServer } from '../support/git-server.ts';
import { checkedFetch, startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { greets, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * The typed client (client/), generated from the OpenAPI document, used for a whole flow against
 * the local API: log in, submit, poll `values` cheaply with ETags until graded, read the attempts.
 */
let api: TestApi;
let world: CourseWorld;
let git: GitServer;
let token: string | undefined;
let client: ApiClient;

beforeAll(async () => {
  git = await startAllowedGitServer({ 'greet-student': { 'hello.sh': 'echo "Hello, World!"\n' } });
  api = await startTestApi({ workers: 1 });
  world = await createCourseWorld(api);
  client = createApiClient({ baseUrl: api.url.replace(/\/api$/, ''), token: () => token, fetch: checkedFetch });
  await uploadGradeable(
    api,
    world,
    selfHostedGradeableJson('greet', `${git.url}/{$gradeable_id}-student.git`, {
      title: 'Greet',
      autograding: { test_cases: [greets(4)] },
    }),
  );
}, 60_000);
afterAll(() => closeAll(api, git));

describe('the generated client types', () => {
  it('are those of the current OpenAPI document (run `npm run docs` after changing routes or contract.ts)', async () => {
    expect(await readFile(CLIENT_TYPES_MODULE, 'utf8'), `${CLIENT_TYPES_MODULE} is stale: run npm run docs`).toBe(await clientTypes());
  }, 60_000);
});

describe('a whole flow with the typed client', () => {
  it('logs in, submits, polls values with If-None-Match until graded, and reads the attempts', async () => {
    const { term, course } = world.course;
    const student = world.users.student;
    const gradeable = { semester: term, course, gradeable_id: 'greet' };

    token = success(await client.POST('/api/token', { body: { user_id: student.userId, password: student.password } })).token;
    expect(success(await client.GET('/api/me')).user_id).toBe(student.userId);

    const submitted = await client.POST('/api/{semester}/{course}/gradeable/{gradeable_id}/upload', {
      params: { path: gradeable, header: { 'Idempotency-Key': `client-${Date.now()}` } },
      body: { vcs_checkout: true, git_repo_id: 'none' },
    });
    expect(success(submitted)).toBe('Successfully uploaded version 1 for Greet');

    let etag: string | undefined;
    let notModified = 0;
    const readValues = () =>
      client.GET('/api/{semester}/{course}/gradeable/{gradeable_id}/values', {
        params: { path: gradeable, header: etag ? { 'If-None-Match': etag } : {} },
      });
    const dataOf = (answer: Awaited<ReturnType<typeof readValues>>) => success(answer);
    let values: ReturnType<typeof dataOf> | undefined;
    async function pollValues() {
      const answer = await readValues();
      if (answer.response.status === 304) {
        notModified++;
        return values;
      }
      etag = answer.response.headers.get('ETag') ?? undefined;
      return dataOf(answer);
    }
    for (let poll = 0; poll < 300 && !values?.autograding_complete; poll++) {
      values = await pollValues();
      if (!values?.autograding_complete) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(values).toMatchObject({ autograding_complete: true, total_points: 4, highest_version: 1 });
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    // Nothing changes once graded: the next poll costs no body.
    expect(await pollValues()).toBe(values);
    expect(notModified).toBeGreaterThanOrEqual(1);

    const attempts = success(
      await client.GET('/api/{semester}/{course}/gradeable/{gradeable_id}/attempts', { params: { path: gradeable } }),
    );
    expect(attempts).toEqual([
      expect.objectContaining({ version: 1, active: true, grading_state: 'graded', points: 4, submitted_by: student.userId }),
    ]);
  }, 90_000);

  it('throws the fail message, with or without Prefer: http-status', async () => {
    token = undefined;
    const anonymous = await client.GET('/api/me');
    expect(() => success(anonymous)).toThrow(
      expect.objectContaining({ name: 'ApiError', message: 'Unauthenticated access. Please log in.', status: 'fail', httpStatus: 200 }),
    );
    const preferred = await client.GET('/api/me', { params: { header: { Prefer: 'http-status' } } });
    expect(preferred.response.status).toBe(401);
    expect(() => success(preferred)).toThrow('Unauthenticated access. Please log in.');
  });
});

describe('ETags over HTTP', () => {
  it('are sent by values and attempts only, and a fail answer is never a 304', async () => {
    // The student's own token ended with the client's login above: the instructor reads theirs.
    const path = `/${world.course.term}/${world.course.course}/gradeable/greet`;
    const attempts = `${path}/attempts?user_id=${world.users.student.userId}`;
    const instructor = world.tokens.instructor;
    const first = await api.get(attempts, instructor);
    const etag = first.headers.get('etag')!;
    expect(etag, first.text).toMatch(/^"/);
    const again = await checkedFetch(`${api.url}${attempts}`, { headers: { ...instructor, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const preferred = await checkedFetch(`${api.url}${attempts}`, {
      headers: { ...instructor, 'If-None-Match': etag, Prefer: 'http-status' },
    });
    expect(preferred.status).toBe(304);
    // Without If-None-Match, always the envelope with 200.
    expect((await api.get(attempts, instructor)).httpStatus).toBe(200);
    expect((await api.get('/me', instructor)).headers.get('etag')).toBeNull();
    const missing = await checkedFetch(`${api.url}/${world.course.term}/${world.course.course}/gradeable/nothing/values`, {
      headers: { ...instructor, 'If-None-Match': '*' },
    });
    expect(missing.status).toBe(200);
    expect(await missing.json()).toEqual({ status: 'fail', message: 'Gradeable does not exist' });
  });
});
