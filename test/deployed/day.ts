/**
 * The deployed day's harness: what the day's steps (`functions/<name>/day.ts`, gathered by
 * `functions/day-steps.ts`, run in their phases by ordinary-day.test.ts) call the deployed API
 * with and check its answers by: personas and their tokens, the day's course and gradeables, a
 * checked `call`, failures collected with the deployment's own problems, waits for grades, webhook
 * events and regrades. Test code only: no function imports it.
 */
import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { GitServer } from '../support/git-server.ts';
import type { ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver.ts';
import type { DeployedStack } from './deployment.ts';
import { daysFromNow } from '../support/dates.ts';
import { rubricComponent } from '../support/rubric.ts';
import { makeZip } from '../support/zip.ts';
import { checkedFetch } from '../support/checked-fetch.ts';
import type { OidcTestProvider } from '../support/oidc-provider.ts';
import type { LtiTestPlatform } from '../support/lti-platform.ts';
import { pageTitle } from '#shared/http/platform-answers.ts';

/**
 * The day's phases, in order: what exists once each is over. A step runs in its phase, after every
 * step of the phases before it; the steps of one phase do not depend on each other.
 */
export const DAY_PHASES = [
  'deployed',
  'seeded',
  'signed in',
  'signed in through the identity provider',
  'identity read',
  'lti platform registered',
  'lti platform read',
  'lti platform removed',
  'terms',
  'gradeables',
  'course copied',
  'courses read',
  'team formed',
  'team listed',
  'team deleted',
  'teams imported',
  'accounts created',
  'accounts read',
  'accounts changed',
  'passwords set',
  'audit trails read',
  'webhook registered',
  'webhook listed',
  'lms course linked',
  'graded',
  'graded read',
  'lms scores published',
  'lms scores read',
  'lms scores replayed',
  'lms course unlinked',
  'quiz graded',
  'grader given a section',
  'quiz graded again',
  'grades read',
  'quiz graded by the grader',
  'inquiry opened',
  'inquiries listed',
  'inquiry answered',
  'inquiry resolved',
  'class list imported',
  'member dropped',
  'active version chosen',
  'late days set',
  'late days read',
  'gradeable uploaded by mistake',
  'gradeable downloaded',
  'gradeable replaced',
  'gradeable deleted',
  'settings set',
  'course archived',
  'course unarchived',
  'regraded',
  'regrade done',
  'summaries generated',
  'summaries done',
  'summaries read',
  'summaries regenerated',
  'deliveries listed',
  'delivery replayed',
  'webhook deleted',
  'grading attacked',
  'files gradeable uploaded',
  'files declared',
  'files submitted',
  'files read',
  'files regraded',
  'similarity compared',
  'similarity read',
  'similarity reviewed',
  'similarity decided',
  'every GET called',
  'signed out',
  'covered',
] as const;

export type DayPhase = (typeof DAY_PHASES)[number];

/** One step of the day: what it shows, when it runs and what it does (failing through `fail` and `expect`). */
export interface DayStep {
  /** What the step shows, as the day's test names it. */
  readonly title: string;
  readonly phase: DayPhase;
  /** Waits for grading builds, which need root: skipped otherwise, saying why. */
  readonly builds?: boolean;
  /** How long it may take, in ms (the test's default otherwise). */
  readonly timeoutMs?: number;
  readonly run: () => Promise<void> | void;
}

/** A route's steps in the day: at least one, which calls the route. */
export type RouteDay = readonly [DayStep, ...DayStep[]];

/** What steps hand on to later steps of the day. */
export const handedOn: {
  /** The account the admin created, and its token. */
  newcomer?: string | undefined;
  /** The reference page's assets, as the page names them. */
  docsAssets?: readonly string[];
  /** The files gradeable's upload forms, declared before the files are submitted. */
  uploads?: readonly { upload_id: string; url: string; fields: Record<string, string> }[];
  /** The mistaken gradeable's download, with its ETag. */
  mistake?: { readonly etag: string; readonly data: Record<string, unknown> | undefined };
  /** The regrade of every active version, and the builds started before it. */
  regrade?: { readonly id: string | undefined; readonly builds: number };
  /** The summaries job the instructor started. */
  summaries?: { readonly job_id?: string; readonly state?: string } | undefined;
  /** The gradebook export the instructor asked for. */
  gradebookExport?: string | undefined;
  /** The similarity run the instructor asked for, and its most similar pair. */
  similarityRun?: string | undefined;
  similarityPair?: string | undefined;
  /** The similarity run of the gradeable submitted from git. */
  repositorySimilarityRun?: string | undefined;
  /** The summaries' generation time before the nightly schedule. */
  firstGeneration?: string | undefined;
  /** The LTI platform the admin registered. */
  ltiRegistration?: string;
  /** The institution's LMS (the test platform) as registered, and the LMS course linked to the day's course. */
  lmsRegistration?: string;
  lmsLink?: { readonly registration_id: string; readonly context_id: string };
  /** The delivery of the student who never launched, as listed. */
  skippedScore?: string | undefined;
  ltiInvitation?: string;
  /** The grade inquiry the student opened. */
  inquiryId?: string;
  /** The webhook's deliveries, as listed. */
  deliveries?: readonly { id: string; event: string; state: string; attempts: { status: number | null }[] }[];
} = {};

export const STACK = 'CourseSubmissionApi-deployed';
export const TERM = 'f26';
export const COURSE = 'base';
export const NEW_TERM = `s${Date.now().toString(36).slice(-5)}`;
export const NEW_COURSE = 'base_copy';
export const GRADEABLE = 'hw_vcs';
/** A gradeable without version control: students submit files. */
export const FILES = 'hw_files';
/** A gradeable naming a build image the deployment does not offer: its submissions fail with a message. */
export const UNAPPROVED = 'hw_nope';
/** A Numeric gradeable whose grading is open: TA grading, its audit trail and the gradebook. */
export const QUIZ = 'quiz_day';
export const date = (days: number) => daysFromNow(days).slice(0, 10);
/** A team gradeable: its team formed, listed and deleted. */
export const PAIR_PROJECT = 'pair-project';
/** A gradeable graded by TAs and released, whose grade a student asks about. */
export const INQUIRED = 'hw_inquired';
export const inquiriesPath = `/api/${TERM}/${COURSE}/gradeable/${INQUIRED}/inquiries`;
/** A gradeable uploaded twice by mistake: changed, then deleted. */
export const MISTAKE = {
  id: 'quiz_mistake',
  title: 'Quiz 1 (uploaded twice by mistake)',
  type: 'Numeric',
  syllabus_bucket: 'quiz',
  rubric: [rubricComponent('Q1', { max_value: 10, upper_clamp: 10 })],
};
/** The archive a student uploads straight to the bucket. */
export const WORK_ZIP = makeZip([
  { name: 'hello.sh', content: 'echo "Hello, World!"\n' },
  { name: 'README.md', content: '# Homework\n' },
]);

export type PersonaName = 'admin' | 'prof' | 'ta' | 'mentor' | 'student' | 'student2';
export const personas: Record<PersonaName, { level: string; group?: string; section?: string; given: string; family: string }> = {
  admin: { level: 'superuser', given: 'Ada', family: 'Admin' },
  prof: { level: 'faculty', given: 'Pat', family: 'Professor' },
  ta: { level: 'user', group: 'full access grader', section: '1', given: 'Terry', family: 'Assistant' },
  mentor: { level: 'user', group: 'limited access grader', section: '1', given: 'Morgan', family: 'Mentor' },
  student: { level: 'user', group: 'student', section: '1', given: 'Sam', family: 'Student' },
  student2: { level: 'user', group: 'student', section: '2', given: 'Sky', family: 'Student' },
};
/** Set by hand for the staff accounts, generated by the class-list import for the others. */
export const passwords: Partial<Record<PersonaName, string>> = {};
export const tokens: Partial<Record<PersonaName, string>> = {};

export const testCases = [
  { name: 'Greets', command: 'sh hello.sh', points_available: 5, expect: { stdout_contains: 'Hello' } },
  { name: 'Has a README', command: 'true', points_available: 1, expect: { files_exist: ['README.md'] } },
  { name: 'Exact greeting', command: 'sh hello.sh', points_available: 4, is_hidden: true, expect: { stdout: 'Hello, World!\n' } },
];

export let git: GitServer;
export let receiver: WebhookReceiver;
/** The institution's identity provider the student signs in through. */
export let identityProvider: OidcTestProvider;
/** The institution's LMS (the LTI test platform on loopback), started once the API is deployed. */
export let lms: LtiTestPlatform | undefined;
/** The LMS course the day links, and what `LTI_FRONTEND_URL` the deployment redirects launches to. */
export const LMS_CONTEXT = 'day-lms-course';
export const LTI_FRONTEND_URL = 'http://127.0.0.1:5173/lti';
/** The day's webhook (on a loopback receiver): its id and signing secret. */
export let webhook: { id: string; secret: string } | undefined;
export const HOOK_PATH = '/hooks/day';
export let stack: DeployedStack | undefined;

/** What the day runs against, once started (the test's setup). */
export function startDay(parts: { git: GitServer; receiver: WebhookReceiver; identityProvider: OidcTestProvider }): void {
  ({ git, receiver, identityProvider } = parts);
}

/** The LMS, once started for the deployed API. */
export function lmsStarted(platform: LtiTestPlatform): void {
  lms = platform;
}

/** The deployed stack, once deployed. */
export function deployed(deployment: DeployedStack): void {
  stack = deployment;
}

/** The webhook the day registered. */
export function registered(hook: { id: string; secret: string }): void {
  webhook = hook;
}

/**
 * The emulated CodeBuild builds need root (namespaces, mounts, the harness's users), as CI runs
 * the tests; otherwise the steps that wait for a build are skipped, saying why.
 */
export const CAN_BUILD = process.getuid?.() === 0;
export const NEEDS_ROOT = CAN_BUILD ? '' : ' (skipped: the emulated CodeBuild builds need root, as CI runs the tests)';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body, undefined when it is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any answer's JSON, read freely by the steps, which check its shape themselves
  readonly json: any;
}

/** What went wrong in a step: failed expectations and the deployment's own problems, in order. */
export const failures: string[] = [];

export function fail(step: string, detail: string): void {
  failures.push(`${step}\n  ${detail.replace(/\n/g, '\n  ')}`);
}

/** Problems a step expects (a failure it provokes on purpose): not failures while it runs. */
let expectedProblems: readonly RegExp[] = [];

/** The problems the running step provokes on purpose (none: every problem is a failure). */
export function expectProblems(patterns: readonly RegExp[]): void {
  expectedProblems = patterns;
}

/** The deployment's new problems, less those the running step expects. */
function newProblems(): string[] {
  return stack!.newProblems().filter((problem) => !expectedProblems.some((expected) => expected.test(problem)));
}

/** Collects the deployment's problems (denials, crashes, …) against the step that caused them. */
export function collectProblems(step: string): void {
  for (const problem of newProblems()) fail(step, problem);
}

/** Fails the test with everything collected so far. */
export function expectNoFailures(): void {
  const found = failures.splice(0);
  if (found.length > 0) throw new Error(`The deployed artifacts failed ${found.length} time(s):\n\n${found.join('\n\n')}`);
}

/**
 * The builds a worker starts for `jobs` jobs queued together, as the build policy
 * (shared/grading/builds/policy.ts) allows: at least one, and never more than one per job, since a
 * build starts only for a job claimed (or again for one whose build died, which no build here
 * does). How many depends on timing: without a measured job time every wake-up may start a build,
 * and a running build takes the next queued job when it claims it before another wake-up does.
 */
export function expectBuildsFor(jobs: number, started: number, what: string): void {
  expect(started, what).toBeGreaterThanOrEqual(1);
  expect(started, what).toBeLessThanOrEqual(jobs);
}

export interface CallOptions {
  readonly as?: PersonaName;
  readonly token?: string;
  readonly form?: Record<string, string>;
  readonly json?: unknown;
  readonly multipart?: Record<string, string>;
  /** Files of a multipart body (the field `files`), by name. */
  readonly files?: Record<string, string>;
  readonly headers?: Record<string, string>;
  /**
   * The envelope expected: `success` unless told; `fail` with this message; `raw` for a body that is no envelope; `redirect` for a
   * 302 or 303 with a Location (not followed); `page` for a platform-facing route's HTML page with this status and title.
   */
  readonly expect?: 'success' | { fail: string; status: number } | { page: string; status: number } | 'raw' | 'redirect';
  /** A success's HTTP status, when the route declares another than 200 (202: queued). */
  readonly successStatus?: number;
}

/** One HTTP request to the emulated API, checked: the expected envelope, and no new problem anywhere. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
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
  } else if (options.multipart || options.files) {
    body = new FormData();
    for (const [name, value] of Object.entries(options.multipart ?? {})) body.append(name, value);
    for (const [name, content] of Object.entries(options.files ?? {})) body.append('files', new Blob([content]), name);
  }
  const step = `${method} ${path}${options.as ? ` as ${options.as}` : ''}`;
  const response = await checkedFetch(`${stack!.gateway.url}${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  let parsed: { status?: unknown; message?: unknown } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const expected = options.expect ?? 'success';
  const problem =
    expected === 'success'
      ? response.status !== (options.successStatus ?? 200) || parsed?.status !== 'success'
        ? `expected a success envelope, got HTTP ${response.status}: ${text.slice(0, 1500)}`
        : undefined
      : expected === 'redirect'
        ? (response.status !== 302 && response.status !== 303) || !response.headers.has('location')
          ? `expected a redirect, got HTTP ${response.status}: ${text.slice(0, 1500)}`
          : undefined
        : expected === 'raw'
          ? response.status !== 200
            ? `expected HTTP 200, got ${response.status}: ${text.slice(0, 1500)}`
            : undefined
          : 'page' in expected
            ? response.status !== expected.status || pageTitle(text) !== expected.page
              ? `expected the page "${expected.page}" (HTTP ${expected.status}), got HTTP ${response.status}: ${text.slice(0, 1500)}`
              : undefined
            : response.status !== expected.status || parsed?.status !== 'fail' || parsed?.message !== expected.fail
              ? `expected fail "${expected.fail}" (HTTP ${expected.status}), got HTTP ${response.status}: ${text.slice(0, 1500)}`
              : undefined;
  const problems = newProblems();
  if (problem) {
    // Unless a recorded problem (a denial, a crash) explains it: the log of the function that answered.
    const answered = stack!.gateway.calls.at(-1);
    const fn =
      problems.length === 0 ? stack!.deployment.functions.find((candidate) => candidate.logicalId === answered?.function) : undefined;
    fail(step, `${problem}${fn ? `\n${fn.logicalId} log:\n${stack!.lambda.logTail(fn, 8)}` : ''}`);
  }
  for (const found of problems) fail(step, found);
  return { status: response.status, headers: response.headers, text, json: parsed };
}

/** The webhook's requests so far, each verified by the Standard Webhooks scheme with its secret (a failure otherwise). */
export function signedDeliveries(step: string): { request: ReceivedRequest; payload: { type: string; data: Record<string, unknown> } }[] {
  return receiver.received
    .filter((request) => request.path === HOOK_PATH)
    .flatMap((request) => {
      try {
        const payload = new Webhook(webhook!.secret).verify(request.body, request.headers as Record<string, string>) as {
          type: string;
          data: Record<string, unknown>;
        };
        return [{ request, payload }];
      } catch (error) {
        fail(
          step,
          `a webhook request that does not verify (${(error as Error).message}): ${JSON.stringify(request.headers)} ${request.body.slice(0, 300)}`,
        );
        return [];
      }
    });
}

/** Waits until the webhook received an event of `type` matching `data`, or fails the step after `timeoutMs`. */
export async function webhookEvent(step: string, type: string, data: Record<string, unknown>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = signedDeliveries(step).find(
      ({ payload }) => payload.type === type && Object.entries(data).every(([key, value]) => payload.data[key] === value),
    );
    if (found) return found;
    if (Date.now() > deadline) {
      const delivery = stack!.deployment.functions.find((fn) => fn.name.includes('WebhookDelivery'));
      fail(
        step,
        `no signed ${type} ${JSON.stringify(data)} reached the webhook within ${timeoutMs} ms; it received ${receiver.received.length} request(s)${delivery ? `\n${stack!.lambda.logTail(delivery, 6)}` : ''}`,
      );
      return undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A launch of `persona` from the day's LMS course, as their browser makes it (the platform's
 * login, its ID token posted to the tool), and the launch code traded for a launch session.
 */
export async function lmsLaunch(persona: PersonaName, roles: readonly string[]): Promise<string | undefined> {
  const step = `LTI launch as ${persona}`;
  const answer = await lms!.launch(`lms-${persona}`, { roles: [...roles], contextId: LMS_CONTEXT });
  const location = answer.headers.get('location') ?? '';
  if (answer.status !== 303 || !location.startsWith(`${LTI_FRONTEND_URL}#`)) {
    fail(step, `expected a 303 to ${LTI_FRONTEND_URL}, got HTTP ${answer.status} ${location}: ${(await answer.text()).slice(0, 500)}`);
    return undefined;
  }
  const code = new URLSearchParams(new URL(location).hash.slice(1)).get('lti_code') ?? '';
  const traded = await call('POST', '/api/token', { json: { lti_code: code } });
  return typeof traded.json?.data?.token === 'string' ? (traded.json.data.token as string) : undefined;
}

export async function login(persona: PersonaName): Promise<void> {
  const answer = await call('POST', '/api/token', { form: { user_id: persona, password: passwords[persona] ?? '' } });
  if (typeof answer.json?.data?.token === 'string') tokens[persona] = answer.json.data.token;
}

/** What the steps read of a `values` answer. */
export interface GradedValues {
  readonly autograding_complete?: boolean;
  readonly total_points?: number;
  readonly total_percent?: number;
  readonly test_cases?: readonly { readonly testcase_message: string; readonly points_received: number }[];
}

/** Polls `values` until the version is graded, or until `deadline` (a failure, with the grading functions' logs). */
export async function gradedValues(
  persona: PersonaName,
  query: string,
  deadline: number,
  gradeable = GRADEABLE,
): Promise<GradedValues | undefined> {
  const failed = failures.length;
  for (;;) {
    const answer = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${gradeable}/values${query}`, { as: persona });
    const data = answer.json?.data as GradedValues | undefined;
    if (!data || data.autograding_complete) return data;
    // A grading function failed meanwhile: no use waiting for the lease to run out.
    if (failures.length > failed) return undefined;
    if (Date.now() > deadline) {
      // The functions fed by the queue, and those they invoke: what they logged.
      const grading = stack!.deployment.functions.filter((fn) => !stack!.deployment.api!.routes.some((route) => route.function === fn));
      const logs = grading.map((fn) => `${fn.logicalId} log:\n${stack!.lambda.logTail(fn, 8)}`).join('\n');
      fail(`values as ${persona}${query}`, `not graded in time: ${answer.text.slice(0, 500)}\n${logs}`);
      return undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A regrade's state once it is done, or the last seen at the deadline (the failure recorded). */
export async function regradeState(regradeId: string, deadline: number): Promise<string | undefined> {
  let state: string | undefined;
  while (failures.length === 0) {
    const status = await call('GET', `/api/${TERM}/${COURSE}/regrades/${regradeId}`, { as: 'prof' });
    state = status.json?.data?.state;
    if (state === 'done' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  if (state !== 'done') fail('regrade status', `not done in time (${state ?? 'no state'})`);
  return state;
}

/** Waits until the student's files version is graded, and checks its points. */
export async function gradedFiles(version: number): Promise<void> {
  const values = await gradedValues('student', '', Date.now() + 60_000, FILES);
  if (values?.autograding_complete) expect({ version, points: values.total_points }).toEqual({ version, points: 6 });
}
