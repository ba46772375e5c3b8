import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { swaggerUiLinks } from '#shared/docs/swagger-ui.ts';
import { matchRoute, routeKeys, routes } from '#functions/definitions.ts';
import { contracts } from '#functions/contracts.ts';
import { pageTitle } from '#shared/http/platform-answers.ts';
import { routeRows } from '#functions/test-rows.ts';
import type { RouteDefinition, RouteKey } from '#shared/http/routes.ts';
import { checkedFetch, startTestApi, type TestApi } from '../support/http.ts';
import { addMember, createCourseWorld, tokenOf, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { differences, snapshotTables, type Snapshot } from './support.ts';
import { daysFromNow, openDates } from '../support/dates.ts';
import { publicGradeableJson, publicVcs, uploadGradeable } from '../support/gradeables.ts';
import type { FuzzWorld } from './test-rows.ts';
import { makeZip } from '../support/zip.ts';
import { listObjects } from '#shared/storage/objects.ts';

/**
 * Hostile input over real HTTP: generated paths, query strings, headers and bodies sent to every
 * route of the local API, with an instructor's token, a superuser's, garbage or none. Every answer
 * must be a well-formed envelope with the right status in both status modes, never an `error`
 * (a 5xx caused by input), and a refused request must change no item.
 */

let api: TestApi;
let world: CourseWorld;
let gradeable: string;
let teamGradeable: string;
/** An Electronic File gradeable without version control: the files routes' own. */
let filesGradeable: string;
let logoutUser: TestUser;
let logoutToken: string;
let webhookId: string;
/** Port 9 (discard) on loopback, allowed for the test: webhooks register, and nothing is ever delivered. */
const WEBHOOK_URL = 'http://127.0.0.1:9/hostile';
const RUNS = Number(process.env.HOSTILE_RUNS ?? 30);
// Any write into Object.prototype (by the service or by this test) fails loudly instead of
// silently changing every object in the process.
Object.preventExtensions(Object.prototype);

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_ALLOWED_HOSTS', '127.0.0.1:9');
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  logoutUser = await createUser('user', 'logout');
  logoutToken = await login(logoutUser);
  const webhook = await api.postJson(
    `/${world.course.term}/${world.course.course}/webhooks`,
    { url: WEBHOOK_URL, events: 'submission.failed' },
    world.tokens.instructor,
  );
  expect(webhook.json.status, webhook.text).toBe('success');
  webhookId = webhook.json.data.id;
  gradeable = uniqueCode('hw');
  const answer = await createHomework(gradeable);
  expect(answer.json.status, answer.text).toBe('success');
  teamGradeable = uniqueCode('team');
  await uploadGradeable(api, world, {
    id: teamGradeable,
    title: 'Hostile team homework',
    type: 'Electronic File',
    team_gradeable: { team_size_max: 2, inherit_from: '' },
  });
  filesGradeable = uniqueCode('files');
  await uploadGradeable(api, world, {
    id: filesGradeable,
    title: 'Hostile files',
    type: 'Electronic File',
    dates: { ta_view_start_date: daysFromNow(-3), submission_open_date: daysFromNow(-2), submission_due_date: daysFromNow(5) },
    submission_limits: { max_files: 3, max_bytes: 10_000 },
  });
}, 120_000);
afterAll(async () => {
  await api.close();
  vi.unstubAllEnvs();
});

async function login(user: TestUser): Promise<string> {
  return (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token;
}

// ---------------------------------------------------------------------------------------------
// Generators

const special = fc.constantFrom(
  '../',
  '../../etc/passwd',
  '..',
  '.',
  '#',
  '#frag',
  '%00',
  '\u0000',
  '%',
  '%zz',
  '%2F',
  'a/b',
  '?x=1',
  '\r\n',
  '\t',
  ' ',
  '',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'NaN',
  '1e309',
  '-1',
  '0',
  '0x10',
  '{}',
  '[]',
  '"',
  "'",
  '\\',
  '\uFEFF',
  '\u202E',
  '💥',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'ﷺ',
  'é',
  '\u0301',
  '<script>',
  '${jndi:x}',
  'a'.repeat(65),
  'a'.repeat(257),
);
const longString = fc
  .tuple(fc.constantFrom('a', 'é', '💥', '\u0000', '/'), fc.integer({ min: 257, max: 3_000 }))
  .map(([unit, n]) => unit.repeat(n));
const text = fc.oneof(
  { weight: 3, arbitrary: special },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: longString },
  { weight: 1, arbitrary: fc.integer().map(String) },
);
/** Text that survives encodeURIComponent (no lone surrogates). */
const urlText = fc.oneof(special, fc.string({ unit: 'grapheme', maxLength: 30 }), longString, fc.integer().map(String));
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(text, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(text, text, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 2_000 }, (_, i) => i)) },
);
/** Header values fetch will send (visible Latin-1, no line breaks). */
const headerText = fc.oneof(
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength: 40,
  }),
  fc.integer({ min: 100, max: 2_000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom('', ' ', '%00', '../', 'null', 'Bearer', 'Bearer ', 'Bearer a.b.c', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'),
);

const FIELDS = [
  'user_id',
  'password',
  'course_semester',
  'course_title',
  'head_instructor',
  'base_course',
  'base_course_semester',
  'base_course_title',
  'copy_gradeables',
  'term_id',
  'term_name',
  'start_date',
  'end_date',
  'id',
  'title',
  'type',
  'vcs',
  'dates',
  'rubric',
  'autograding',
  'vcs_checkout',
  'git_repo_id',
  'syllabus_bucket',
  'team_gradeable',
  'url',
  'events',
  'description',
  'component_id',
  'mark_ids',
  'custom_points',
  'custom_message',
  'revision',
  'version',
  'group',
  'registration_section',
  'rotating_section',
  'grading_sections',
  'first_name',
  'last_name',
  'email',
  'class_list',
  'files',
  'upload_ids',
  'name',
  'size',
];
const fieldName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: text });
const fields = fc.array(fc.tuple(fieldName, value), { maxLength: 8 });

interface Body {
  readonly contentType?: string;
  readonly payload: string | Uint8Array;
}

const BOUNDARY = '----hostileBoundary7';
function multipart(entries: [string, unknown][], boundary = BOUNDARY): string {
  return (
    entries
      .map(
        ([name, v]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${typeof v === 'string' ? v : JSON.stringify(v)}\r\n`,
      )
      .join('') + `--${boundary}--\r\n`
  );
}
const jsonObject = fields.map((entries) => JSON.stringify(Object.fromEntries(entries)));

const hostileBody: fc.Arbitrary<Body | undefined> = fc.oneof(
  fc.constant(undefined),
  jsonObject.map((payload) => ({ contentType: 'application/json', payload })),
  // Duplicated fields, the last of a different type.
  fc.tuple(fc.constantFrom(...FIELDS), text, value).map(([name, a, b]) => ({
    contentType: 'application/json',
    payload: `{${JSON.stringify(name)}:${JSON.stringify(a)},${JSON.stringify(name)}:${JSON.stringify(b) ?? 'null'}}`,
  })),
  // Invalid JSON: truncated objects, bare text, JSON that is not an object.
  fc
    .tuple(jsonObject, fc.nat())
    .map(([json, cut]) => ({ contentType: 'application/json', payload: json.slice(0, Math.max(1, cut % json.length)) })),
  fc
    .constantFrom('[]', '[1,2]', '"text"', '42', 'null', 'true', '{', '{"a":}', '\u0000', '{"a":1}garbage', 'NaN')
    .map((payload) => ({ contentType: 'application/json', payload })),
  // url-encoded, with duplicated fields and broken escapes.
  fc.array(fc.tuple(fieldName, text), { maxLength: 8 }).map((entries) => {
    const form = new URLSearchParams();
    for (const [name, v] of entries) form.append(name, v);
    for (const [name, v] of entries.slice(0, 2)) form.append(name, `${v}-again`);
    return { contentType: 'application/x-www-form-urlencoded', payload: form.toString() };
  }),
  fc
    .constantFrom('%', '%%%', 'a=%ZZ', '=', '&&&', 'user_id', 'a=1&a=2&a[]=3', 'user_id[]=x&password[a]=b')
    .map((payload) => ({ contentType: 'application/x-www-form-urlencoded', payload })),
  // multipart: well formed with hostile values, truncated, wrong or missing boundary.
  fields.map((entries) => ({
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    payload: multipart(entries.map(([n, v]) => [String(n).replace(/["\r\n]/g, ''), v])),
  })),
  fc.tuple(fields, fc.nat()).map(([entries, cut]) => {
    const full = multipart(entries.map(([n, v]) => [String(n).replace(/["\r\n]/g, ''), v]));
    return { contentType: `multipart/form-data; boundary=${BOUNDARY}`, payload: full.slice(0, cut % full.length) };
  }),
  fields.map((entries) => ({ contentType: 'multipart/form-data', payload: multipart(entries.map(([n, v]) => [String(n), v])) })),
  fields.map((entries) => ({
    contentType: `multipart/form-data; boundary="other"`,
    payload: multipart(entries.map(([n, v]) => [String(n), v])),
  })),
  // Base64 garbage and binary bodies under every media type.
  fc
    .tuple(
      fc.uint8Array({ maxLength: 200 }),
      fc.constantFrom(
        'application/json',
        'application/octet-stream',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'image/png',
      ),
    )
    .map(([bytes, contentType]) => ({ contentType, payload: bytes })),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ contentType: 'application/json', payload: Buffer.from(bytes).toString('base64') })),
  // Wrong or odd content types.
  fc
    .tuple(
      jsonObject,
      fc.constantFrom(
        'text/plain',
        'application/xml',
        'application/json; charset=utf-16',
        'application/vnd.api+json',
        'APPLICATION/JSON',
        '',
        'json',
        '*/*',
        'application/x-www-form-urlencoded',
      ),
    )
    .map(([payload, contentType]) => ({ contentType, payload })),
);

/** An upload id of the right shape that names no upload. */
const FAKE_UPLOAD_ID = '00000000-0000-4000-8000-000000000000.bWFpbi5jcHA';

/** What a route's rows (functions/<name>/test-rows.ts) build valid bodies and paths from. */
const fuzzWorld = (): FuzzWorld => ({
  term: world.course.term,
  course: world.course.course,
  userIds: { instructor: world.users.instructor.userId, student: world.users.student.userId, student2: world.users.student2.userId },
  unique: (prefix) => uniqueCode(prefix),
  webhookUrl: WEBHOOK_URL,
  uploadId: FAKE_UPLOAD_ID,
  homework: gradeable,
  teamGradeable,
  filesGradeable,
});

/** A request body the route would accept, as its callers send it: its `validBody` (a route that reads has none; another method on its path starts from `{}`). */
function validBody(name: RouteKey['name']): Record<string, unknown> {
  const rows = routeRows[name];
  return rows.validBody ? rows.validBody(fuzzWorld()) : {};
}

/** A valid body with one to three fields (top-level or one level down) replaced by hostile values. */
function mutatedBody(name: RouteKey['name']): fc.Arbitrary<Body> {
  return fc
    .tuple(
      fc.array(fc.tuple(fieldName, fc.option(text, { nil: undefined }), value), { minLength: 1, maxLength: 3 }),
      fc.constantFrom('json', 'form', 'multipart'),
    )
    .map(([changes, encoding]) => {
      const document: Record<string, unknown> = structuredClone(validBody(name));
      // Own properties only, defined rather than assigned: a generated "__proto__" must become a
      // field of the body, never a write into Object.prototype of the test process itself.
      const define = (target: Record<string, unknown>, key: string, v: unknown) =>
        Object.defineProperty(target, key, { value: v, enumerable: true, writable: true, configurable: true });
      for (const [field, inner, v] of changes) {
        const current = Object.hasOwn(document, field) ? document[field] : undefined;
        if (inner !== undefined && current && typeof current === 'object' && !Array.isArray(current))
          define(current as Record<string, unknown>, inner, v);
        else define(document, field, v);
      }
      const flat = Object.entries(document).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]);
      if (encoding === 'form') return { contentType: 'application/x-www-form-urlencoded', payload: new URLSearchParams(flat).toString() };
      if (encoding === 'multipart')
        return {
          contentType: `multipart/form-data; boundary=${BOUNDARY}`,
          payload: multipart(flat.map(([k, v]) => [k.replace(/["\r\n]/g, ''), v])),
        };
      return { contentType: 'application/json', payload: JSON.stringify(document) };
    });
}

type Auth = 'instructor' | 'superuser' | 'none' | 'garbage';
const auth = fc.constantFrom<Auth>('instructor', 'instructor', 'superuser', 'none', 'none', 'garbage');

interface HostileRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string>;
  readonly auth: Auth;
  readonly garbageAuth: string;
  readonly body: Body | undefined;
}

const segment = (valid: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(encodeURIComponent(valid)) },
    { weight: 2, arbitrary: urlText.map(encodeURIComponent) },
    { weight: 1, arbitrary: urlText.map((raw) => raw.replace(/[/?]/g, '')) }, // as typed: # cuts the path, ../ is resolved
    { weight: 1, arbitrary: fc.constantFrom('%00', '%', '%zz', '..%2F..%2F', '%2e%2e', '%23', '%E2%82', '') },
  );

const hostileQuery = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.oneof(fc.constant('user_id'), urlText), urlText), { maxLength: 4 })
    .map((entries) => entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  fc.tuple(urlText, urlText).map(([a, b]) => `user_id=${encodeURIComponent(a)}&user_id=${encodeURIComponent(b)}`),
  fc.constantFrom('user_id', 'user_id=', 'user_id=%', '%00=%00', '&&', '=x', 'user_id[]=a', 'user_id=..%2F..%2Fadmin'),
);

/**
 * API Gateway refuses a request whose request line and headers pass 10 KiB before any function
 * runs (and Node's HTTP server at 16 KiB, without an envelope): such requests are not the API's.
 */
function withinGatewayLimits(request: HostileRequest): boolean {
  const head =
    encodeURI(request.path).length + request.query.length + Object.values(request.headers).join('').length + request.garbageAuth.length;
  return head < 9_000;
}

function requestFor(key: RouteKey): fc.Arbitrary<HostileRequest> {
  const valid: Record<string, string> = {
    semester: world.course.term,
    course: world.course.course,
    gradeable_id: gradeable,
    team_id: 'fuzz-team',
    user_id: world.users.student.userId,
    webhook_id: webhookId,
    delivery_id: 'msg_000000000000000000000',
    regrade_id: 'rg_AAAAAAAAAAAAAAAAAAAAAA',
    job_id: 'sj_AAAAAAAAAAAAAAAAAAAAAA',
    inquiry_id: 'iq_000000000000000000000',
    asset: swaggerUiLinks().script,
    ...routeRows[key.name].fuzzedPath?.(fuzzWorld()),
  };
  const names = [...key.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const path = fc.tuple(...names.map((name) => segment(valid[name] ?? 'x'))).map((values) => {
    let i = 0;
    return key.path.replace(/\{(\w+)\}/g, () => values[i++]!);
  });
  // Other methods on a read's path must not reach the write served there (POST …/reports/summaries).
  const writesOnPath = new Set<string>(
    routeKeys.filter((other) => other.path === key.path && other.method !== 'GET').map((other) => other.method),
  );
  const otherMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter(
    (other) => key.method !== 'GET' || !writesOnPath.has(other),
  );
  const method = fc.oneof({ weight: 6, arbitrary: fc.constant(key.method) }, { weight: 1, arbitrary: fc.constantFrom(...otherMethods) });
  const headers = fc.record(
    {
      prefer: fc.constantFrom('http-status', 'HTTP-Status; x=1', 'return=minimal, http-status', 'return=minimal'),
      'idempotency-key': headerText,
      accept: fc.constantFrom('application/xml', '*/*', 'text/html'),
      'x-forwarded-for': headerText,
      'x-hostile': headerText,
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      method,
      path,
      query: fc.oneof(
        hostileQuery,
        fc
          .tuple(text, fc.constantFrom('user_id', 'user_id', 'x'))
          .map(([v, k]) => `${k}=${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, ''))}`),
      ),
      headers,
      auth,
      garbageAuth: headerText,
      body: fc.oneof({ weight: 2, arbitrary: hostileBody }, { weight: 3, arbitrary: mutatedBody(key.name) }),
    })
    .map((request) => ({ ...request, body: request.method === 'GET' ? undefined : request.body }))
    .filter(withinGatewayLimits);
}

// ---------------------------------------------------------------------------------------------
// Checks

const GENERIC_STATUS: Record<string, number> = {
  'Unauthenticated access. Please log in.': 401,
  "You don't have access to this endpoint.": 403,
  'Endpoint not found.': 404,
  'Method not allowed.': 405,
  'Failed to load course. Check course title and ensure it exists.': 404,
  'The request body is not valid JSON.': 400,
  'The request body is not a valid url-encoded form.': 400,
  'The request body is not valid multipart/form-data.': 400,
  'The request body must be a JSON object.': 400,
  'Unsupported Content-Type. Send application/json, application/x-www-form-urlencoded or multipart/form-data.': 415,
  'POST request exceeds maximum size of 1M': 413,
};

async function send(request: HostileRequest, preferHttpStatus: boolean) {
  const headers: Record<string, string> = { ...request.headers };
  if (!preferHttpStatus) delete headers.prefer;
  else if (!headers.prefer?.toLowerCase().includes('http-status')) headers.prefer = 'http-status';
  if (request.auth === 'instructor') headers.authorization = world.tokens.instructor.Authorization!;
  if (request.auth === 'superuser') headers.authorization = world.tokens.superuser.Authorization!;
  if (request.auth === 'garbage') headers.authorization = request.garbageAuth;
  // invalidate-token with a valid token and no credentials logs that token out: use a spare user's.
  if (request.auth !== 'none' && request.auth !== 'garbage' && request.path.startsWith('/api/token/invalidate'))
    headers.authorization = logoutToken;
  if (request.body?.contentType !== undefined) headers['content-type'] = request.body.contentType;
  const url = `${api.url}${request.path.replace(/^\/api/, '')}${request.query ? `?${request.query}` : ''}`;
  const response = await checkedFetch(url, { method: request.method, headers, body: request.body?.payload, redirect: 'manual' });
  const text = await response.text();
  if (process.env.HOSTILE_TRACE)
    appendFileSync(process.env.HOSTILE_TRACE, `${response.status} ${text.slice(0, 80)} <= ${describeRequest(request).slice(0, 600)}\n`);
  return { status: response.status, headers: response.headers, text };
}

/** The public routes answering a JSON document of their own, and a key every such document has. */
const JSON_DOCUMENTS: Readonly<Record<string, string>> = {
  '/api/openapi\\.json': 'openapi',
  '/api/lti/jwks': 'keys',
  '/api/lti/config': 'oidc_initiation_url',
};

/** The success status the route answering `where` (`METHOD path…`) declares for `Prefer: http-status`: 202 for one that only queues its work. */
function successStatusOf(where: string): number {
  const [method = '', target = ''] = where.split(' ');
  const match = matchRoute(method, target.split('?')[0] ?? '');
  return match.kind === 'route' ? ((routes[match.name] as RouteDefinition).successStatus ?? 200) : 200;
}

/** The method and path of each platform-facing route (LTI), which answers redirects and HTML pages as its specification says. */
const PLATFORM_ROUTES = routeKeys.filter((key) => contracts[key.name].platform).map((key) => `${key.method} ${key.path}?`);

/**
 * A platform-facing route's answer: a redirect with a Location (its success), or an HTML page
 * titled with the cause, a refusal's status (never 5xx: input never breaks it), whether or not
 * Prefer asks for statuses. Answers its outcome.
 */
function checkPlatformAnswer(answer: { status: number; headers: Headers; text: string }, where: string): string {
  if (answer.status === 302 || answer.status === 303) {
    expect(answer.headers.get('location'), where).toBeTruthy();
    return 'success';
  }
  expect(answer.headers.get('content-type'), where).toMatch(/^text\/html/);
  expect(pageTitle(answer.text), `${where}: ${answer.text.slice(0, 300)}`).toBeTruthy();
  expect(answer.status, `${where}: ${answer.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(answer.status, `${where}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  return 'fail';
}

/** Asserts the answer is a well-formed envelope with the right status; returns its status. */
function checkEnvelope(answer: { status: number; headers: Headers; text: string }, preferHttpStatus: boolean, where: string): string {
  if (PLATFORM_ROUTES.some((route) => where.startsWith(route))) return checkPlatformAnswer(answer, where);
  // The reference page and its assets are served as themselves (their failures are envelopes).
  if (
    where.startsWith('GET /api/docs') &&
    answer.status === 200 &&
    /^text\/(html|javascript|css)/.test(answer.headers.get('content-type') ?? '')
  )
    return 'success';
  expect(answer.headers.get('content-type'), where).toMatch(/^application\/json/);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    throw new Error(`${where}: not JSON: ${answer.text.slice(0, 200)}`);
  }
  // The public JSON documents are served as themselves, not in an envelope: the OpenAPI document,
  // and the LTI tool's key set and configuration, which platforms read as LTI says.
  const documentKey = Object.entries(JSON_DOCUMENTS).find(([path]) => new RegExp(`^GET ${path}[? ]`).test(where))?.[1];
  if (documentKey !== undefined && documentKey in json) {
    expect(answer.status, where).toBe(200);
    return 'success';
  }
  // So is the record keys' JWK Set (GET /api/records/jwks).
  if (Array.isArray(json.keys) && where.startsWith('GET /api/records/jwks')) {
    expect(answer.status, where).toBe(200);
    return 'success';
  }
  const keys = Object.keys(json);
  const status = json.status as string;
  expect(['success', 'fail', 'error'], `${where}: ${answer.text.slice(0, 300)}`).toContain(status);
  expect(status, `${where}: an error answer to input: ${answer.text.slice(0, 300)}`).not.toBe('error');
  if (status === 'success') expect(keys, where).toEqual(['status', 'data']);
  if (status === 'fail') {
    expect(
      [
        ['status', 'message'],
        ['status', 'data', 'message'],
      ],
      where,
    ).toContainEqual(keys);
    expect(typeof json.message, where).toBe('string');
  }
  if (!preferHttpStatus) {
    expect(answer.status, where).toBe(200);
    return status;
  }
  expect(answer.headers.get('preference-applied'), where).toBe('http-status');
  if (status === 'success') expect(answer.status, where).toBe(successStatusOf(where));
  if (status === 'fail') {
    expect(answer.status, `${where}: ${answer.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    expect(answer.status, where).toBeLessThan(500);
    const generic = GENERIC_STATUS[json.message as string];
    if (generic) expect(answer.status, `${where}: ${json.message}`).toBe(generic);
  }
  return status;
}

/**
 * Snapshots without the login-failure counters, the user id's and each known client's (a wrong
 * login, or a wrong current password, legitimately counts).
 */
async function state(): Promise<Snapshot> {
  const snapshot = await snapshotTables();
  snapshot.Credentials = snapshot.Credentials!.filter((item) => !String(item.kind).startsWith('login-failures'));
  return snapshot;
}

/** The items once what a request accepted has run its course: a gradebook export or summaries job it queued moves on by itself. */
async function settledState(): Promise<Snapshot> {
  await api.server.summariesQueue.idle();
  return state();
}

const describeRequest = (request: HostileRequest) =>
  `${request.method} ${request.path.slice(0, 200)}?${request.query.slice(0, 100)} auth=${request.auth} body=${request.body ? `${request.body.contentType} ${String(request.body.payload).slice(0, 120)}` : 'none'}`;

async function fuzz(keys: readonly RouteKey[], options: { writes: boolean; numRuns: number }) {
  let before = await state();
  for (const key of keys) {
    await fc
      .check(
        fc.asyncProperty(requestFor(key), async (request) => {
          const where = describeRequest(request);
          const preferred = await send(request, true);
          const outcome = checkEnvelope(preferred, true, where);
          if (outcome === 'success') {
            if (request.path.startsWith('/api/token/invalidate')) logoutToken = await login(logoutUser);
            if (options.writes) before = await settledState();
            return;
          }
          // The same request without Prefer: the same envelope, HTTP 200.
          const plain = await send(request, false);
          const plainOutcome = checkEnvelope(plain, false, where);
          if (plainOutcome === 'success' && options.writes) before = await settledState();
          if (!options.writes || plainOutcome === 'success') return;
          const after = await state();
          expect(differences(before, after), `${where}: a refused request changed items`).toEqual([]);
        }),
        { numRuns: options.numRuns, endOnFailure: true },
      )
      .then(report);
  }
  if (!options.writes) expect(differences(before, await state()), 'reads changed items').toEqual([]);
}

/** Fails with the shrunk counterexample in a few lines (fast-check prints whole multi-KiB inputs). */
function report(details: fc.RunDetails<[HostileRequest]>): void {
  if (!details.failed) return;
  const [example] = details.counterexample ?? [];
  const shown =
    example && typeof example === 'object' && 'method' in example
      ? describeRequest(example as HostileRequest)
      : JSON.stringify(details.counterexample).slice(0, 500);
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`Counterexample (seed ${details.seed}, path ${details.counterexamplePath}): ${shown}\n${error.slice(0, 1_500)}`);
}

const reads = () => routeKeys.filter((key) => key.method === 'GET');
const writes = () => routeKeys.filter((key) => key.method !== 'GET');

/** A VCS homework of the world's course, open for submissions. */
const createHomework = (id: string) =>
  api.postJson(
    `/${world.course.term}/${world.course.course}/upload`,
    publicGradeableJson(id, { title: 'Hostile homework', vcs: publicVcs('org/hw-{$user_id}'), dates: openDates(2) }),
    world.tokens.instructor,
  );

describe('hostile input', () => {
  it('never breaks a reading route, nor changes anything', async () => {
    await fuzz(reads(), { writes: false, numRuns: RUNS });
  }, 120_000);

  it('answers unknown paths and methods with an envelope', async () => {
    // Normalised by the client to the target `//`, which a URL read against a base takes for a host (was a 500).
    const doubleSlash: HostileRequest = {
      method: 'GET',
      path: '/api/..//',
      query: '',
      headers: {},
      auth: 'instructor',
      garbageAuth: '',
      body: undefined,
    };
    checkEnvelope(await send(doubleSlash, true), true, describeRequest(doubleSlash));
    const anyPath = fc
      .array(urlText.map(encodeURIComponent), { minLength: 0, maxLength: 7 })
      .map((segments) => `/api/${segments.join('/')}`);
    const anyRequest = fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        path: anyPath,
        query: hostileQuery,
        headers: fc.constant({}),
        auth,
        garbageAuth: headerText,
        body: fc.constant(undefined),
      })
      .filter(withinGatewayLimits)
      // Writes are the other tests' business; here only what matches no route, or matches oddly.
      .filter((request) => !/\/(token|invalidate|upload|grade|summaries|courses|terms)$/.test(request.path));
    const before = await state();
    await fc
      .check(
        fc.asyncProperty(anyRequest, async (request: HostileRequest) => {
          checkEnvelope(await send(request, true), true, describeRequest(request));
          checkEnvelope(await send(request, false), false, describeRequest(request));
        }),
        { numRuns: RUNS * 2 },
      )
      .then(report);
    expect(differences(before, await state())).toEqual([]);
  }, 60_000);

  it('refuses hostile ID tokens with a clear answer and writes nothing', async () => {
    // An issuer nobody answers at: a token claiming it can only end in a retryable error, never a defect.
    const issuer = 'http://127.0.0.1:9';
    vi.stubEnv('OIDC_ISSUER', issuer);
    vi.stubEnv('OIDC_CLIENT_ID', 'course-submission-api');
    const part = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
    const header = fc.oneof(
      fc.constant({ alg: 'none' }),
      fc.constant({ alg: 'HS256' }),
      fc.constant({ alg: 'RS256', kid: '../../etc/passwd' }),
      fc.record({ alg: text, kid: text, jku: fc.constant('http://169.254.169.254/latest') }),
      value,
    );
    const claims = fc.oneof(
      fc.record({ iss: fc.constantFrom(issuer, `${issuer}/`, 'https://evil.example'), aud: fc.oneof(text, fc.array(text)), sub: text }),
      value,
    );
    const idToken = fc.oneof(
      text,
      fc.tuple(header, claims, text).map(([h, c, signature]) => `${part(h)}.${part(c)}.${part(signature)}`),
    );
    const before = await state();
    try {
      await fc.assert(
        fc.asyncProperty(idToken, fc.option(text, { nil: undefined }), async (token, nonce) => {
          const answer = await api.postJson('/token', { id_token: token, ...(nonce === undefined ? {} : { nonce }) });
          const where = `id_token ${JSON.stringify(token).slice(0, 200)}`;
          if (answer.json.status === 'error') expect(answer.json.code, where).toBe('RETRYABLE');
          else expect(answer.json.status, where).toBe('fail');
        }),
        { numRuns: RUNS },
      );
    } finally {
      // Only these two: the file's other settings (its signing secret among them) stay as they are.
      delete process.env.OIDC_ISSUER;
      delete process.env.OIDC_CLIENT_ID;
    }
    expect(differences(before, await state())).toEqual([]);
  }, 120_000);

  it('refuses hostile file names, zips, sizes and upload ids to the files routes, and writes no item and no object', async () => {
    const { term, course } = world.course;
    // Students of its own: the fuzzing before may have logged out or changed the world's.
    const [student, student2] = [await createUser(), await createUser()];
    await addMember(world.course, student, 4, '1');
    await addMember(world.course, student2, 4, '1');
    const asStudent: Record<string, string> = { Authorization: await tokenOf(api, student) };
    const asStudent2: Record<string, string> = { Authorization: await tokenOf(api, student2) };
    const base = `/${term}/${course}/gradeable/${filesGradeable}`;
    const stored = async () => (await listObjects(`versions/${term}/${course}/${filesGradeable}/`)).map((object) => object.key);
    // Someone else's upload, really uploaded: not the student's to confirm.
    const theirs = await api.postJson(`${base}/files/uploads`, { files: [{ name: 'main.cpp', size: 4 }] }, asStudent2);
    expect(theirs.json.status, theirs.text).toBe('success');
    const [form] = theirs.json.data.uploads as { upload_id: string; url: string; fields: Record<string, string> }[];
    const upload = new FormData();
    for (const [name, v] of Object.entries(form!.fields)) upload.append(name, v);
    upload.append('file', new Blob(['int;']));
    // eslint-disable-next-line no-restricted-globals -- the local S3 endpoint, not the API
    expect((await fetch(form!.url, { method: 'POST', body: upload })).status).toBeLessThan(300);

    const before = await state();
    const objectsBefore = await stored();
    const send = (files: { name: string; content: Buffer | string }[], token = asStudent) => {
      const body = new FormData();
      for (const file of files) body.append('files', new Blob([file.content]), file.name);
      return api.call('POST', `${base}/files`, { headers: { ...token, Prefer: 'http-status' }, body });
    };
    const refusedFiles: [{ name: string; content: Buffer | string }[], string][] = [
      [
        [{ name: '../evil.sh', content: 'x' }],
        'The file name ../evil.sh contains a folder separator: send the file itself, or a .zip to keep folders.',
      ],
      [
        [{ name: '/etc/passwd', content: 'x' }],
        'The file name /etc/passwd contains a folder separator: send the file itself, or a .zip to keep folders.',
      ],
      [[{ name: '..', content: 'x' }], 'The file name .. is not allowed: . and .. name folders.'],
      [[{ name: 'a\\b.c', content: 'x' }], 'Error: You may not use quotes, backslashes or angle brackets in your file name a\\b.c.'],
      [[{ name: `${'a'.repeat(300)}.c`, content: 'x' }], `The file name ${'a'.repeat(100)}… is longer than 255 bytes.`],
      [
        [
          { name: 'x.c', content: 'x' },
          { name: 'x.c', content: 'y' },
        ],
        'The file x.c is sent twice: file names must differ.',
      ],
      [['a', 'b', 'c', 'd'].map((name) => ({ name, content: 'x' })), 'This gradeable takes at most 3 files; the submission has 4.'],
      [
        [{ name: 'big.bin', content: Buffer.alloc(10_001) }],
        'File(s) uploaded too large.  Maximum size is 10 kb. Uploaded file(s) was 10.001 kb.',
      ],
      [
        [{ name: 'w.zip', content: makeZip([{ name: '../../etc/cron.d/x', content: 'x' }]) }],
        'The file w.zip holds ../../etc/cron.d/x, which lies outside its folder.',
      ],
      [
        [{ name: 'w.zip', content: makeZip([{ name: '/abs', content: 'x' }]) }],
        'The file w.zip holds /abs, which lies outside its folder.',
      ],
      [
        [{ name: 'w.zip', content: makeZip([{ name: 'l', content: '/etc/shadow', mode: 0o120777 }]) }],
        'The file w.zip holds l, a link: links are not accepted.',
      ],
      [
        [{ name: 'w.zip', content: makeZip([{ name: 'dev', content: '', mode: 0o020644 }]) }],
        'The file w.zip holds dev, which is not a regular file or folder.',
      ],
      [
        [{ name: 'w.zip', content: makeZip([{ name: 'e', content: 'x', encrypted: true }]) }],
        'The file w.zip holds e, which is encrypted.',
      ],
      [
        [{ name: 'bomb.zip', content: makeZip([{ name: 'z', content: Buffer.alloc(1_000_000) }]) }],
        'File(s) uploaded too large.  Maximum size is 10 kb. Uploaded file(s) was 1000 kb: the file bomb.zip holds z, which unpacks to 1000 kb.',
      ],
      [
        [{ name: 'bomb.zip', content: makeZip([{ name: 'z', content: Buffer.alloc(1_000_000), declaredSize: 10 }]) }],
        'Corrupted ZIP file for bomb.zip.',
      ],
      [
        [{ name: 'many.zip', content: makeZip(['a', 'b', 'c', 'd'].map((name) => ({ name, content: 'x' }))) }],
        'This gradeable takes at most 3 files; the submission has 4.',
      ],
    ];
    for (const [files, message] of refusedFiles) {
      const answer = await send(files);
      expect(answer.httpStatus, `${files[0]!.name}: ${answer.text.slice(0, 300)}`).toBe(400);
      expect(answer.json.message, files[0]!.name).toBe(message);
    }
    const confirm = (body: unknown, token = asStudent) => api.postJson(`${base}/files`, body, { ...token, Prefer: 'http-status' });
    for (const id of ['x', '../../versions/x', FAKE_UPLOAD_ID, `${FAKE_UPLOAD_ID}=`, form!.upload_id]) {
      const answer = await confirm({ upload_ids: [id] });
      expect(answer.json, id).toEqual({
        status: 'fail',
        message: `The upload ${id} is not one of yours, has expired or was never uploaded.`,
      });
    }
    // Staff submitting for the uploader cannot confirm the uploader's upload either: uploads are the caller's own.
    expect((await confirm({ upload_ids: [form!.upload_id], user_id: student2.userId }, world.tokens.instructor)).json.message).toBe(
      `The upload ${form!.upload_id} is not one of yours, has expired or was never uploaded.`,
    );
    expect((await confirm({ upload_ids: [] })).json.message).toBe('No files to be submitted.');
    for (const files of [
      [{ name: '../x', size: 1 }],
      [{ name: 'x', size: 10_001 }],
      [{ name: 'x', size: -1 }],
      [{ name: 'x', size: 1.5 }],
      [{ name: 'x', size: 'many' }],
      [{ name: 'x' }],
      [],
      ['a', 'b', 'c', 'd'].map((name) => ({ name, size: 1 })),
    ]) {
      const answer = await api.postJson(`${base}/files/uploads`, { files }, { ...asStudent, Prefer: 'http-status' });
      expect(answer.json.status, `${JSON.stringify(files)}: ${answer.text.slice(0, 300)}`).toBe('fail');
      expect(answer.httpStatus, JSON.stringify(files)).toBe(400);
    }
    for (const query of ['version=0', 'version=-1', 'version=abc', 'version=1', `version=1&user_id=${student2.userId}`]) {
      const answer = await api.get(`${base}/files?${query}`, { ...asStudent, Prefer: 'http-status' });
      expect(answer.json.status, `${query}: ${answer.text.slice(0, 300)}`).toBe('fail');
      expect(answer.httpStatus, query).toBeLessThan(500);
    }
    expect(differences(before, await state())).toEqual([]);
    expect(await stored()).toEqual(objectsBefore);
  }, 120_000);

  it('refuses a submission for an empty or malformed user_id as not in the course (was a 500)', async () => {
    // A homework of its own: the fuzzing before may have changed or deleted the file's.
    const homework = uniqueCode('hw');
    expect((await createHomework(homework)).json.status).toBe('success');
    const before = await state();
    const path = `/${world.course.term}/${world.course.course}/gradeable/${homework}/upload`;
    for (const userId of ['', ' ', '../x', 'a'.repeat(200)]) {
      const answer = await api.postJson(
        path,
        { vcs_checkout: true, git_repo_id: 'none', user_id: userId },
        { ...world.tokens.instructor, Prefer: 'http-status' },
      );
      expect(answer.httpStatus, answer.text).toBe(404);
      expect(answer.json).toEqual({ status: 'fail', message: `User ${userId.slice(0, 64)} is not in this course.` });
    }
    expect(differences(before, await state())).toEqual([]);
  });

  it('refuses class lists that are garbage, formula-only or past the body limit, and writes nothing', async () => {
    const before = await state();
    const path = `/${world.course.term}/${world.course.course}/users/import`;
    const garbage = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7919 + 13) % 256));
    const formulas = 'user_id,first_name,last_name,email,registration_section,group\nfz1,=1+1,B,a@x.edu,1,4\nfz2,A,@SUM(A1),b@x.edu,1,4\n';
    for (const [payload, status] of [
      [garbage, 400],
      ['\uFEFF', 400],
      ['"unclosed,quote\n', 400],
      [Buffer.alloc(10 * 1024 * 1024, 0x41), 413],
      [formulas, 200],
    ] as const) {
      const answer = await api.call('POST', path, {
        headers: { 'Content-Type': 'text/csv', Prefer: 'http-status', ...world.tokens.instructor },
        body: payload,
      });
      expect(answer.httpStatus, answer.text).toBe(status);
      if (status === 200) expect(answer.json.data).toMatchObject({ created: 0, rejected: [{ line: 2 }, { line: 3 }] });
      else expect(answer.json.status).toBe('fail');
    }
    expect(differences(before, await state())).toEqual([]);
  });

  it('refuses oversized bodies with 413 and writes nothing', async () => {
    const before = await state();
    const big = JSON.stringify({ user_id: 'x', pad: 'a'.repeat(1024 * 1024) });
    const path = `/${world.course.term}/${world.course.course}/upload`;
    for (const [target, payload] of [
      [path, big],
      ['/token', big],
      [path, 'a'.repeat(11 * 1024 * 1024)],
    ] as const) {
      const answer = await checkedFetch(`${api.url}${target}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', prefer: 'http-status', ...world.tokens.instructor },
        body: payload,
      });
      expect(answer.status).toBe(413);
      expect(await answer.json()).toEqual({ status: 'fail', message: 'POST request exceeds maximum size of 1M' });
    }
    expect(differences(before, await state())).toEqual([]);
  });

  // Last: an accepted write (a random seed each run) may change the fixtures the tests above rely on.
  it('never breaks a writing route; a refused write changes no item', async () => {
    await fuzz(writes(), { writes: true, numRuns: RUNS });
  }, 180_000);
});
