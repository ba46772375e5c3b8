import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { routeKeys } from '#shared/http/routes.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import type { PolicyDocument } from './cloudformation.ts';
import { deploy, routeFunction, synthesize, type DeployedStack } from './deployment.ts';

/**
 * The deployed-artifact test (issue 12, item 4): the CDK app is synthesized, and its bundled
 * functions run the way Lambda runs them, behind the template's HTTP API routes, with every AWS
 * call evaluated against the function's own IAM policy from the template. An ordinary day of the
 * service — logins, every route, a submission graded through the queue, worker and runner, the
 * summaries on request and from the nightly schedule, a logout — must pass without a single
 * AccessDenied, crash, `error` envelope or unexpected `fail`. It never imports the handlers.
 */
const STACK = 'CourseSubmissionApi-deployed';
const TERM = 'f26';
const COURSE = 'base';
const NEW_TERM = `s${Date.now().toString(36).slice(-5)}`;
const NEW_COURSE = 'base_copy';
const GRADEABLE = 'hw_vcs';
const DAY_MS = 24 * 60 * 60 * 1000;
const iso = (days: number) => new Date(Math.floor((Date.now() + days * DAY_MS) / 1000) * 1000).toISOString();
const date = (days: number) => iso(days).slice(0, 10);

type PersonaName = 'admin' | 'prof' | 'ta' | 'mentor' | 'student' | 'student2';
const personas: Record<PersonaName, { level: string; group?: string; section?: string; given: string; family: string }> = {
  admin: { level: 'superuser', given: 'Ada', family: 'Admin' },
  prof: { level: 'faculty', given: 'Pat', family: 'Professor' },
  ta: { level: 'user', group: 'full access grader', section: '1', given: 'Terry', family: 'Assistant' },
  mentor: { level: 'user', group: 'limited access grader', section: '1', given: 'Morgan', family: 'Mentor' },
  student: { level: 'user', group: 'student', section: '1', given: 'Sam', family: 'Student' },
  student2: { level: 'user', group: 'student', section: '2', given: 'Sky', family: 'Student' },
};
const passwords = Object.fromEntries(Object.keys(personas).map((name) => [name, `pw-${name}-${Math.random().toString(36).slice(2)}`])) as Record<PersonaName, string>;
const tokens: Partial<Record<PersonaName, string>> = {};

const testCases = [
  { name: 'Greets', command: 'sh hello.sh', points_available: 5, expect: { stdout_contains: 'Hello' } },
  { name: 'Has a README', command: 'true', points_available: 1, expect: { files_exist: ['README.md'] } },
  { name: 'Exact greeting', command: 'sh hello.sh', points_available: 4, is_hidden: true, expect: { stdout: 'Hello, World!\n' } },
];

let outdir: string;
let git: GitServer;
let stack: DeployedStack | undefined;
const started = Date.now();

/** Until the product passes, the test runs only when asked: `DEPLOYED_TEST=1 npx vitest run test/deployed`. */
const enabled = process.env.DEPLOYED_TEST === '1';

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly json: any;
}

/** What went wrong in a step: failed expectations and the deployment's own problems, in order. */
const failures: string[] = [];

function fail(step: string, detail: string): void {
  failures.push(`${step}\n  ${detail.replace(/\n/g, '\n  ')}`);
}

/** Collects the deployment's problems (denials, crashes, …) against the step that caused them. */
function collectProblems(step: string): void {
  for (const problem of stack!.newProblems()) fail(step, problem);
}

/** Fails the test with everything collected so far. */
function expectNoFailures(): void {
  const found = failures.splice(0);
  if (found.length > 0) throw new Error(`The deployed artifacts failed ${found.length} time(s):\n\n${found.join('\n\n')}`);
}

interface CallOptions {
  readonly as?: PersonaName;
  readonly token?: string;
  readonly form?: Record<string, string>;
  readonly json?: unknown;
  readonly multipart?: Record<string, string>;
  readonly headers?: Record<string, string>;
  /** The envelope expected: `success` unless told; `fail` with this message; `raw` for a body that is no envelope. */
  readonly expect?: 'success' | { fail: string; status: number } | 'raw';
}

/** One HTTP request to the emulated API, checked: the expected envelope, and no new problem anywhere. */
async function call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { Prefer: 'http-status', ...options.headers };
  const token = options.token ?? (options.as ? tokens[options.as] : undefined);
  if (token) headers.Authorization = token;
  let body: string | FormData | undefined;
  if (options.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.multipart) {
    body = new FormData();
    for (const [name, value] of Object.entries(options.multipart)) body.append(name, value);
  }
  const step = `${method} ${path}${options.as ? ` as ${options.as}` : ''}`;
  const response = await fetch(`${stack!.gateway.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const expected = options.expect ?? 'success';
  const problem =
    expected === 'success'
      ? response.status !== 200 || parsed?.status !== 'success'
        ? `expected a success envelope, got HTTP ${response.status}: ${text.slice(0, 1500)}`
        : undefined
      : expected === 'raw'
        ? response.status !== 200
          ? `expected HTTP 200, got ${response.status}: ${text.slice(0, 1500)}`
          : undefined
        : response.status !== expected.status || parsed?.status !== 'fail' || parsed?.message !== expected.fail
          ? `expected fail "${expected.fail}" (HTTP ${expected.status}), got HTTP ${response.status}: ${text.slice(0, 1500)}`
          : undefined;
  const problems = stack!.newProblems();
  if (problem) {
    // Unless a recorded problem (a denial, a crash) explains it: the log of the function that answered.
    const answered = stack!.gateway.calls.at(-1);
    const fn = problems.length === 0 ? stack!.deployment.functions.find((candidate) => candidate.logicalId === answered?.function) : undefined;
    fail(step, `${problem}${fn ? `\n${fn.logicalId} log:\n${stack!.lambda.logTail(fn, 8)}` : ''}`);
  }
  for (const found of problems) fail(step, found);
  return { status: response.status, text, json: parsed };
}

async function login(persona: PersonaName): Promise<void> {
  const answer = await call('POST', '/api/token', { form: { user_id: persona, password: passwords[persona] } });
  if (typeof answer.json?.data?.token === 'string') tokens[persona] = answer.json.data.token;
}

/** Polls `values` until the version is graded, or until `deadline` (a failure, with the grading functions' logs). */
async function gradedValues(persona: PersonaName, query: string, deadline: number): Promise<any> {
  for (;;) {
    const answer = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/values${query}`, { as: persona });
    const data = answer.json?.data;
    if (!data || data.autograding_complete) return data;
    if (Date.now() > deadline) {
      // The functions fed by the queue, and those they invoke: what they logged.
      const grading = stack!.deployment.functions.filter((fn) => !stack!.deployment.api!.routes.some((route) => route.function === fn));
      const logs = grading.map((fn) => `${fn.logicalId} log:\n${stack!.lambda.logTail(fn, 20)}`).join('\n');
      fail(`values as ${persona}${query}`, `not graded in time: ${answer.text.slice(0, 500)}\n${logs}`);
      return undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.skipIf(!enabled)('the deployed artifacts', () => {
  beforeAll(async () => {
    git = await startGitServer({
      [`${GRADEABLE}-student`]: { 'hello.sh': 'echo "Hello, World!"\n', 'README.md': '# Homework\n' },
      [`${GRADEABLE}-student2`]: { 'hello.sh': 'echo "Goodbye, World!"\n', 'README.md': '# Homework\n' },
    });
    outdir = await mkdtemp(join(tmpdir(), 'deployed-cdk-out-'));
    synthesize(outdir, STACK, { allowedGitHosts: git.host });
    stack = await deploy(outdir, STACK, { dynamodbEndpoint: inject('dynamodbEndpoint') });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    await git?.close();
    if (outdir) await rm(outdir, { recursive: true, force: true });
    console.info(`deployed-artifact test: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 60_000);

  describe('an ordinary day', () => {
    it('deploys: every route of the route table has an API route, and the template is deployable', () => {
      const templateKeys = new Set(stack!.deployment.api!.routes.map((route) => route.routeKey));
      const missing = routeKeys.map((key) => `${key.method} ${key.path}`).filter((key) => !templateKeys.has(key));
      expect(missing, 'route-table entries without an API route in the template').toEqual([]);
      expect(templateKeys.has('$default')).toBe(true);
      collectProblems('deployment');
      expectNoFailures();
    });

    it('seeds users, a term, a course and its class list with the admin command line', async () => {
      await Promise.all(
        (Object.entries(personas) as [PersonaName, (typeof personas)[PersonaName]][]).map(([name, persona]) =>
          stack!.admin('add-user', name, '--given-name', persona.given, '--family-name', persona.family, '--email', `${name}@example.edu`, '--level', persona.level, '--password', passwords[name]),
        ),
      );
      await stack!.admin('add-term', TERM, '--name', 'Fall 2026', '--start', date(-30), '--end', date(90));
      await stack!.admin('create-course', TERM, COURSE, '--instructor', 'prof', '--display-name', 'Base Course', '--time-zone', 'UTC');
      const folder = await mkdtemp(join(tmpdir(), 'deployed-class-list-'));
      try {
        const rows = (Object.entries(personas) as [PersonaName, (typeof personas)[PersonaName]][])
          .filter(([, persona]) => persona.group)
          .map(([name, persona]) => [name, persona.given, persona.family, `${name}@example.edu`, persona.section, persona.group].join(','));
        await writeFile(join(folder, 'class-list.csv'), ['user_id,first_name,last_name,email,registration_section,group', ...rows, ''].join('\n'));
        const output = await stack!.admin('enroll', TERM, COURSE, join(folder, 'class-list.csv'));
        expect(output).toContain('0 rejected');
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
      collectProblems('seeding');
      expectNoFailures();
    }, 60_000);

    it('logs everyone in; token, me, openapi and an unknown path', async () => {
      for (const persona of Object.keys(personas) as PersonaName[]) await login(persona);
      expect(Object.keys(tokens).sort(), 'logins that issued a token').toEqual(Object.keys(personas).sort());
      const info = await call('GET', '/api/token', { as: 'student' });
      if (info.json?.data && info.json.data.user_id !== 'student') fail('GET /api/token', `names ${info.text}`);
      for (const persona of Object.keys(personas) as PersonaName[]) {
        const me = await call('GET', '/api/me', { as: persona });
        if (me.json?.data && me.json.data.user_id !== persona) fail(`GET /api/me as ${persona}`, me.text);
      }
      const openapi = await call('GET', '/api/openapi.json', { expect: 'raw' });
      if (!String(openapi.json?.openapi ?? '').startsWith('3.1')) fail('GET /api/openapi.json', `not an OpenAPI 3.1 document: ${openapi.text.slice(0, 200)}`);
      await call('GET', '/api/nowhere/at/all', { as: 'student', expect: { fail: 'Endpoint not found.', status: 404 } });
      expectNoFailures();
    }, 60_000);

    it('courses: lists, a new term and a course copied from the base course, its users and graders', async () => {
      const mine = await call('GET', '/api/courses', { as: 'student' });
      const listed = (mine.json?.data?.unarchived_courses ?? []) as { semester?: string; title?: string }[];
      if (mine.json?.data && !JSON.stringify(listed).includes(`"${COURSE}"`)) fail('GET /api/courses as student', `the course is missing: ${mine.text}`);
      await call('GET', '/api/courses?user_id=student', { as: 'admin' });
      await call('POST', '/api/terms', { as: 'admin', json: { term_id: NEW_TERM, term_name: 'Spring Next', start_date: date(100), end_date: date(200) } });

      const gradeable = {
        id: GRADEABLE,
        title: 'Homework 1: Hello (git)',
        type: 'Electronic File',
        syllabus_bucket: 'homework',
        vcs: { repository_type: 'self-hosted', vcs_path: `${git.url}/{$gradeable_id}-{$user_id}.git`, vcs_subdirectory: '' },
        dates: {
          ta_view_start_date: iso(-2), submission_open_date: iso(-1), submission_due_date: iso(5), team_lock_date: iso(5),
          grade_start_date: iso(6), grade_due_date: iso(7), grade_released_date: iso(8), grade_inquiry_start_date: iso(8), grade_inquiry_due_date: iso(9),
        },
        autograding: { test_cases: testCases },
      };
      await call('POST', `/api/${TERM}/${COURSE}/upload`, { as: 'prof', json: gradeable });
      await call('POST', '/api/courses', {
        as: 'prof',
        form: { course_semester: NEW_TERM, course_title: NEW_COURSE, head_instructor: 'prof', base_course_semester: TERM, base_course_title: COURSE, copy_gradeables: 'true' },
      });

      const users = await call('GET', `/api/${TERM}/${COURSE}/users`, { as: 'prof' });
      if (users.json?.data && (users.json.data as unknown[]).length !== Object.values(personas).filter((persona) => persona.group).length + 1) {
        fail(`GET /api/${TERM}/${COURSE}/users`, `expected everyone of the class list and the instructor: ${users.text.slice(0, 800)}`);
      }
      // Staff of the base course read the new course of the same access group.
      await call('GET', `/api/courses/${NEW_TERM}/${NEW_COURSE}/users`, { as: 'ta' });
      await call('GET', `/api/${TERM}/${COURSE}/graders`, { as: 'prof' });
      await call('GET', `/api/courses/${NEW_TERM}/${NEW_COURSE}/graders`, { as: 'prof' });
      const downloaded = await call('GET', `/api/${TERM}/${COURSE}/${GRADEABLE}/download`, { as: 'prof' });
      if (downloaded.json?.data && downloaded.json.data.id !== GRADEABLE) fail('download', downloaded.text.slice(0, 500));
      await call('GET', `/api/${NEW_TERM}/${NEW_COURSE}/${GRADEABLE}/download`, { as: 'ta' });
      const listing = await call('GET', `/api/${TERM}/${COURSE}/gradeables`, { as: 'student' });
      if (listing.json?.data && !listing.json.data[GRADEABLE]) fail('GET gradeables as student', `${GRADEABLE} is not listed: ${listing.text.slice(0, 800)}`);
      expectNoFailures();
    }, 90_000);

    it('grading: submissions go through the queue, the worker and the runner, and are scored', async () => {
      const submitted = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/upload`, {
        as: 'student',
        form: { user_id: 'student', vcs_checkout: 'true', git_repo_id: 'none' },
        headers: { 'Idempotency-Key': `day-${Date.now()}` },
      });
      if (submitted.json?.data && !/version 1\b/.test(String(submitted.json.data))) fail('submit as student', submitted.text);
      await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/grade`, {
        as: 'student2',
        multipart: { user_id: 'student2', vcs_checkout: 'true', git_repo_id: 'none' },
      });

      if (failures.length > 0) expectNoFailures(); // nothing was queued: no use waiting for grades
      const deadline = Date.now() + 60_000;
      const mine = await gradedValues('student', '', deadline);
      if (mine?.autograding_complete) {
        expect({ total_points: mine.total_points, total_percent: mine.total_percent, messages: mine.test_cases.map((test: { testcase_message: string }) => test.testcase_message) }).toEqual({
          total_points: 6,
          total_percent: 1,
          messages: ['Passed', 'Passed'],
        });
      }
      const theirs = mine ? await gradedValues('ta', '?user_id=student2', deadline) : undefined;
      if (theirs?.autograding_complete) {
        // Staff see the hidden test case; student2's program says goodbye.
        expect({ total_points: theirs.total_points, passed: theirs.test_cases.map((test: { points_received: number }) => test.points_received) }).toEqual({ total_points: 1, passed: [0, 1, 0] });
      }
      const staffView = mine ? await gradedValues('prof', '?user_id=student', deadline) : undefined;
      if (staffView?.autograding_complete) expect(staffView.total_points).toBe(10);
      const attempts = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/attempts`, { as: 'student' });
      if (attempts.json?.data && (attempts.json.data as unknown[]).length !== 1) fail('attempts as student', attempts.text.slice(0, 800));

      await stack!.queues.idle(mine ? 30_000 : 1_000).catch((error: Error) => fail('grading queue', error.message));
      collectProblems('grading');
      expectNoFailures();
    }, 150_000);

    it('summaries: generated on request, listed, read by a student, and regenerated by the nightly schedule', async () => {
      await call('POST', `/api/${TERM}/${COURSE}/reports/summaries`, { as: 'prof' });
      await call('POST', `/api/courses/${NEW_TERM}/${NEW_COURSE}/reports/summaries`, { as: 'prof' });
      const listed = await call('GET', `/api/${TERM}/${COURSE}/reports/summaries`, { as: 'prof' });
      const firstGeneration = listed.json?.data?.generated_at as string | undefined;
      if (listed.json?.data && !(listed.json.data.summaries as unknown[]).length) fail('list summaries', `no summaries: ${listed.text.slice(0, 500)}`);
      await call('GET', `/api/courses/${TERM}/${COURSE}/reports/summaries`, { as: 'prof' });
      const own = await call('GET', `/api/${TERM}/${COURSE}/reports/summaries/student`, { as: 'student' });
      if (own.json?.data && own.json.data.user_id !== 'student') fail('user summary as student', own.text.slice(0, 500));
      await call('GET', `/api/courses/${TERM}/${COURSE}/reports/summaries/student2`, { as: 'prof' });

      const schedules = stack!.deployment.schedules;
      expect(schedules.length, 'schedules in the template').toBeGreaterThan(0);
      for (const schedule of schedules) {
        await new Promise((resolve) => setTimeout(resolve, 1_100)); // a later generation time
        const result = await stack!.fireSchedule(schedule).catch((error: Error) => {
          fail(`schedule ${schedule.logicalId}`, error.message);
          return undefined;
        });
        if (result?.functionError) fail(`schedule ${schedule.logicalId}`, `its target failed: ${result.payload}`);
        collectProblems(`schedule ${schedule.logicalId} (${schedule.expression}, input ${schedule.input})`);
      }
      const regenerated = await call('GET', `/api/${TERM}/${COURSE}/reports/summaries`, { as: 'prof' });
      const secondGeneration = regenerated.json?.data?.generated_at as string | undefined;
      if (firstGeneration && secondGeneration && !(secondGeneration > firstGeneration)) {
        fail('nightly summaries', `the schedule did not regenerate the summaries (generated_at ${firstGeneration} → ${secondGeneration})`);
      }
      expectNoFailures();
    }, 90_000);

    it('logs out: the old token is refused afterwards', async () => {
      const token = tokens.student!;
      await call('POST', '/api/token/invalidate', { as: 'student' });
      await call('GET', '/api/me', { token, expect: { fail: 'Unauthenticated access. Please log in.', status: 401 } });
      // The reference's way: user id and password, for another user.
      await call('POST', '/api/token/invalidate', { form: { user_id: 'mentor', password: passwords.mentor } });
      await call('GET', '/api/me', { token: tokens.mentor!, expect: { fail: 'Unauthenticated access. Please log in.', status: 401 } });
      expectNoFailures();
    });

    it('covered every route of the template, each answered by its own function', () => {
      const routes = stack!.deployment.api!.routes;
      const called = new Set(stack!.gateway.calls.filter((call) => call.status < 500).map((call) => call.routeKey));
      const uncovered = routes.map((route) => route.routeKey).filter((key) => !called.has(key));
      expect(uncovered, 'routes the day never called').toEqual([]);
      expect(stack!.queues.deadLettered, 'dead-lettered wake-ups').toEqual([]);
    });
  });

  describe('with one grant removed by hand', () => {
    it('fails with a message naming the function, the action and the resource', async () => {
      const routeKey = 'GET /api/{semester}/{course}/users';
      const fn = routeFunction(stack!.deployment, routeKey);
      const sessionsTable = stack!.deployment.tables.find((table) => /^Sessions/.test(table.logicalId))!;
      const action = 'dynamodb:BatchGetItem';
      const original = fn.role.policies;
      const edited = removeGrant(original, action, sessionsTable.arn);
      expect(edited, `${fn.logicalId} has no ${action} grant on ${sessionsTable.arn} to remove`).not.toBeUndefined();
      await login('prof');
      stack!.newProblems();
      (fn.role as { policies: typeof original }).policies = edited!;
      try {
        await call('GET', `/api/${TERM}/${COURSE}/users`, { as: 'prof' });
      } finally {
        (fn.role as { policies: typeof original }).policies = original;
      }
      const found = failures.splice(0).join('\n\n');
      expect(found).toContain(`AccessDenied: ${fn.logicalId} may not ${action} on ${sessionsTable.arn}`);
      expect(found).toContain(`User: arn:aws:sts::123456789012:assumed-role/${fn.role.name}/${fn.name} is not authorized to perform: ${action} on resource: ${sessionsTable.arn} because no identity-based policy allows the ${action} action`);
    }, 60_000);
  });
});

/** The policies with `action` on `resource` taken out (undefined when no statement grants it exactly). */
function removeGrant(policies: readonly { name: string; document: PolicyDocument }[], action: string, resource: string) {
  let removed = false;
  const edited = policies.map((policy) => {
    const statements = (Array.isArray(policy.document.Statement) ? policy.document.Statement : [policy.document.Statement]).flatMap((statement) => {
      const actions = ([] as string[]).concat(statement.Action as string | string[]);
      const resources = ([] as string[]).concat(statement.Resource as string | string[]);
      if (statement.Effect !== 'Allow' || !actions.includes(action) || !resources.includes(resource)) return [statement];
      removed = true;
      const rest = resources.filter((candidate) => candidate !== resource);
      return [
        ...(actions.length > 1 ? [{ ...statement, Action: actions.filter((candidate) => candidate !== action), Resource: resources }] : []),
        ...(rest.length > 0 ? [{ ...statement, Action: [action], Resource: rest }] : []),
      ];
    });
    return { name: policy.name, document: { ...policy.document, Statement: statements } };
  });
  return removed ? edited : undefined;
}
