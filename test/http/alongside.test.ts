/**
 * The token check's companions (shared/http/middleware/authenticate.ts): a route's `alongside`
 * read starts with the token check but reaches the handler only once the caller is allowed, and a
 * refused request answers as before whatever that read did; the body is parsed for the reads once
 * the token is verified, and still refused after the token and role checks.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '#functions/definitions.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import type { RequestBody } from '#shared/http/types.ts';
import { addMember, createCourseWorld, tokenOf, type CourseWorld } from '../support/courses.ts';
import { createUser } from '../support/users.ts';
import { apiEvent, lambdaContext } from '../support/events.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let world: CourseWorld;

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
}, 60_000);
afterAll(() => api.close());

const FORBIDDEN = "You don't have access to this endpoint.";
const NO_COURSE = 'Failed to load course. Check course title and ensure it exists.';
const UNAUTHENTICATED = 'Unauthenticated access. Please log in.';

/** A course route whose alongside read records who it ran for and answers, or fails, as told. */
function probe(outcome: 'answers' | 'fails') {
  const started: string[] = [];
  const bodies: RequestBody[] = [];
  const handler = endpoint(routes['list-gradeables'], {
    reads: ({ body }) => {
      bodies.push(body);
      return {};
    },
    alongside: async ({ userId }) => {
      started.push(userId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (outcome === 'fails') throw new Error('the read alongside failed');
      return `read for ${userId}`;
    },
    handle: ({ alongside }) => ({ alongside }),
  });
  return { handler, started, bodies };
}

/** API Gateway (payload 2.0) hands functions lower-case header names. */
const lowerCased = (headers: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

async function call(
  handler: ReturnType<typeof probe>['handler'],
  options: { token?: Record<string, string>; course?: string; body?: string } = {},
) {
  const semester = world.course.term;
  const course = options.course ?? world.course.course;
  const event = {
    ...apiEvent({
      method: 'GET',
      path: `/api/${semester}/${course}/gradeables`,
      routeKey: 'GET /api/{semester}/{course}/gradeables',
      headers: { ...lowerCased(options.token), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(options.body === undefined ? {} : { body: options.body }),
    }),
    pathParameters: { semester, course },
  };
  const result = await handler(event, lambdaContext());
  return JSON.parse(result.body!) as { status: string; data?: { alongside: string }; message?: string };
}

describe('reads alongside the token check', () => {
  it('hand their result to an allowed caller', async () => {
    const { handler, started } = probe('answers');
    const answer = await call(handler, { token: world.tokens.student });
    expect(answer).toEqual({ status: 'success', data: { alongside: `read for ${world.users.student.userId}` } });
    expect(started).toEqual([world.users.student.userId]);
  });

  it('never start for a request without a valid token', async () => {
    const { handler, started } = probe('fails');
    expect(await call(handler)).toMatchObject({ status: 'fail', message: UNAUTHENTICATED });
    expect(await call(handler, { token: { authorization: 'Bearer not-a-token' } })).toMatchObject({ message: UNAUTHENTICATED });
    expect(started).toEqual([]);
  });

  it('change nothing of a refused answer, even when they fail', async () => {
    const { handler, started } = probe('fails');
    expect(await call(handler, { token: world.tokens.otherInstructor })).toEqual({ status: 'fail', message: FORBIDDEN });
    expect(await call(handler, { token: world.tokens.student, course: 'no_such_course' })).toEqual({
      status: 'fail',
      message: NO_COURSE,
    });
    expect(started).toEqual([world.users.otherInstructor.userId, world.users.student.userId]);
  });

  it('do not start again for a caller refused lately, who gets the read after the check once allowed', async () => {
    const outsider = await createUser();
    const token = { authorization: await tokenOf(api, outsider) };
    const { handler, started } = probe('answers');
    expect(await call(handler, { token })).toEqual({ status: 'fail', message: FORBIDDEN });
    expect(await call(handler, { token })).toEqual({ status: 'fail', message: FORBIDDEN });
    expect(await call(handler, { token })).toEqual({ status: 'fail', message: FORBIDDEN });
    // Refused three times, read once: the refusal is remembered, the answer the same.
    expect(started).toEqual([outsider.userId]);
    await addMember(world.course, outsider, 4, '1');
    expect(await call(handler, { token })).toEqual({ status: 'success', data: { alongside: `read for ${outsider.userId}` } });
    expect(await call(handler, { token })).toEqual({ status: 'success', data: { alongside: `read for ${outsider.userId}` } });
    expect(started).toEqual([outsider.userId, outsider.userId, outsider.userId]);
    // Other callers' reads start as before.
    await call(handler, { token: world.tokens.student });
    expect(started.at(-1)).toBe(world.users.student.userId);
  });

  it('fail an allowed request as any failed read does', async () => {
    const { handler } = probe('fails');
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await call(handler, { token: world.tokens.student })).toMatchObject({ status: 'error' });
    vi.restoreAllMocks();
  });
});

describe('the body, for reads', () => {
  it('reaches the reads once the token is verified, as its route reads it', async () => {
    const { handler, bodies } = probe('answers');
    await call(handler, { token: world.tokens.student, body: JSON.stringify({ user_id: 'someone' }) });
    // list-gradeables reads no body field.
    expect(bodies).toEqual([{}]);
  });

  it('is refused after the token and role checks, as before', async () => {
    vi.stubEnv('MAX_BODY_BYTES', '1000');
    vi.resetModules();
    const { endpoint: fresh } = await import('#shared/http/endpoint.ts');
    const handler = fresh(routes['list-gradeables'], { handle: () => ({ alongside: 'none' }) });
    const big = JSON.stringify({ pad: 'x'.repeat(2000) });
    expect(await call(handler, { body: big })).toMatchObject({ message: UNAUTHENTICATED });
    expect(await call(handler, { token: world.tokens.otherInstructor, body: big })).toMatchObject({ message: FORBIDDEN });
    expect(await call(handler, { token: world.tokens.student, body: big })).toMatchObject({
      message: 'POST request exceeds maximum size of 1000',
    });
    expect(await call(handler, { token: world.tokens.student, body: '{not json' })).toMatchObject({ status: 'fail' });
    vi.unstubAllEnvs();
  });
});

describe("the request's view, for reads and handlers", () => {
  /** set-active-version, whose reads and handler record the view they got; a malformed gradeable id answers itself. */
  function versionProbe() {
    const views: unknown[] = [];
    const handler = endpoint(routes['set-active-version'], {
      reads: ({ params, body, query, headers, userId }) => {
        views.push({ params, body, query, headers, userId });
        return {};
      },
      malformed: { gradeable_id: (value) => ({ malformed: value.length }) },
      handle: ({ params, body }) => ({ params, body }),
    });
    return { handler, views };
  }

  async function choose(
    handler: ReturnType<typeof versionProbe>['handler'],
    gradeableId: string,
    token: Record<string, string>,
    body: unknown,
  ) {
    const { term: semester, course } = world.course;
    const event = {
      ...apiEvent({
        method: 'POST',
        path: `/api/${semester}/${course}/gradeable/${gradeableId}/version`,
        routeKey: 'POST /api/{semester}/{course}/gradeable/{gradeable_id}/version',
        headers: { ...lowerCased(token), 'content-type': 'application/json', 'idempotency-key': 'k' },
        body: JSON.stringify(body),
      }),
      pathParameters: { semester, course, gradeable_id: gradeableId },
    };
    return JSON.parse((await handler(event, lambdaContext())).body!) as { status: string; data?: unknown; message?: string };
  }

  it('holds each part read with the route: path parameters of their kind, declared fields parsed, nothing else', async () => {
    const { handler, views } = versionProbe();
    const answer = await choose(handler, 'hw-1', world.tokens.student, { version: '2', user_id: 'someone', extra: 'x' });
    const params = { semester: world.course.term, course: world.course.course, gradeable_id: 'hw-1' };
    expect(answer).toEqual({ status: 'success', data: { params, body: { version: 2, user_id: 'someone' } } });
    expect(views).toEqual([
      { params, body: { version: 2, user_id: 'someone' }, query: {}, headers: {}, userId: world.users.student.userId },
    ]);
  });

  it('builds no read from a field not of its kind, refused after the token and role checks', async () => {
    const { handler, views } = versionProbe();
    expect(await choose(handler, 'hw-1', world.tokens.otherInstructor, { version: 'two' })).toEqual({ status: 'fail', message: FORBIDDEN });
    expect(await choose(handler, 'hw-1', world.tokens.student, { version: 'two' })).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^The field version must be/),
    });
    expect(views).toEqual([]);
  });

  it('builds no read from a malformed path parameter, which the route answers after the token and role checks, given it as sent', async () => {
    const { handler, views } = versionProbe();
    const long = 'x'.repeat(300);
    expect(await choose(handler, long, {}, { version: 1 })).toEqual({ status: 'fail', message: UNAUTHENTICATED });
    expect(await choose(handler, long, world.tokens.otherInstructor, { version: 1 })).toEqual({ status: 'fail', message: FORBIDDEN });
    expect(await choose(handler, long, world.tokens.student, { version: 1 })).toEqual({ status: 'success', data: { malformed: 300 } });
    expect(await choose(handler, '..', world.tokens.student, { version: 1 })).toEqual({ status: 'success', data: { malformed: 2 } });
    // A field not of its kind is refused first, as before the route's own checks.
    expect(await choose(handler, long, world.tokens.student, { version: 'two' })).toMatchObject({ status: 'fail' });
    expect(views).toEqual([]);
  });
});
