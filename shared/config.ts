/**
 * The service's configuration: every setting a function reads, declared once below with its default
 * and its meaning, and read only through this module.
 *
 * - `config(name)` reads one setting as the running function sees it now (through
 *   `shared/environment.ts`, so a local function's own scope is honoured, and a test that changes a
 *   variable gets the new value), parsed and checked. A bad value throws an error naming the variable.
 * - The first read in a process validates the whole configuration (`validateConfig`): a function
 *   fails at cold start, with every bad setting named, rather than on the request that first needs
 *   one. The logger reads its setting when its module loads, so a function that logs validates as
 *   it loads; one that does not (the OpenAPI document, the reference page) at its first read.
 * - Some settings are "reported" instead: a bad value is a `problem` the reader logs, and the
 *   default (or the safe choice: the grading sandbox) is used, as before.
 *
 * Not here: the resource variables the stack sets on each function (table names, the signing
 * secret's ARN or file, queue URLs, the grading sandbox's project, its function name and route),
 * declared by `RESOURCE_VARIABLES` (infra/function-access.ts) and read with `setting()`; Lambda's
 * own variables; and the local server's and admin command line's process settings (`PORT`, `HOST`,
 * `DATA_DIR`, `TABLE_PREFIX`, `GRADING_WORKERS`), read in infra/local.
 */
import { setting } from './environment.ts';

/** A variable's value as the environment holds it: undefined when unset. */
type Raw = string | undefined;

/** A setting whose bad value is reported (for its reader to log) and replaced, rather than thrown. */
export interface Reported<T> {
  readonly value: T;
  readonly problem?: string;
}

/** Why a value is refused: the whole message, naming the variable. */
class Refused {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/**
 * A setting: turns the variable's raw value into what the code uses, or refuses it. Plain
 * functions, not schemas: every function checks all of them as it starts, so they are kept cheap.
 */
type Setting<T> = (raw: Raw) => T | Refused;
const variable = <T>(read: Setting<T>): Setting<T> => read;

/** A setting, made for its variable's name (so that messages can name it). */
type Declaration<T> = (name: string) => Setting<T>;

/** Any text, or undefined when unset; with a fallback, the fallback when unset (`??`). */
function text(): Declaration<string | undefined>;
function text(fallback: string): Declaration<string>;
function text(fallback?: string): Declaration<string | undefined> {
  return () => variable((raw) => raw ?? fallback);
}

/** A whole number of at least `min` (0 or 1); unset or empty: `fallback`. Anything else is refused. */
const wholeNumber =
  (min: 0 | 1, fallback: number): Declaration<number> =>
  (name) =>
    variable((raw) => {
      if (raw === undefined || raw === '') return fallback;
      const value = Number(raw);
      if (!Number.isSafeInteger(value) || value < 0) return new Refused(`${name} must be a whole number of at least 0, not "${raw}"`);
      if (value < min) return new Refused(`${name} must be at least ${min}`);
      return value;
    });

/** A positive number; anything else (unset, empty, 0, not a number) quietly means `fallback`. */
const positiveOr =
  (fallback: number): Declaration<number> =>
  () =>
    variable((raw) => {
      const value = Number(raw);
      return Number.isFinite(value) && value > 0 ? value : fallback;
    });

/** A comma list of hosts (`host` or `host:port`), blanks dropped. */
const hostList = (): Declaration<string[]> => () =>
  variable((raw) =>
    (raw ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter(Boolean),
  );

/**
 * A browser origin CORS may name: `*`, or a scheme (http or https) and host with an optional port,
 * nothing after it (`https://app.example.edu`, `http://localhost:5173`). The stack's `corsOrigins`
 * takes the same.
 */
export const isCorsOrigin = (origin: string): boolean => origin === '*' || /^https?:\/\/[^/\s]+$/.test(origin);

/** A comma list of browser origins (isCorsOrigin), blanks dropped; anything else is refused. */
const originList = (): Declaration<string[]> => (name) =>
  variable((raw) => {
    const origins = (raw ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean);
    const bad = origins.find((origin) => !isCorsOrigin(origin));
    if (bad !== undefined) return new Refused(`${name} takes origins like https://app.example.edu (or *), not ${JSON.stringify(bad)}`);
    return origins;
  });

/** On or off: `1`/`true` or `0`/`false`; unset or empty: off. Anything else is refused. */
const onOff = (): Declaration<boolean> => (name) =>
  variable((raw) => {
    if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
    if (raw === '1' || raw === 'true') return true;
    return new Refused(`${name} must be 1 or true (on), 0 or false (off), not ${JSON.stringify(raw)}`);
  });

/** A bound on what gradeables may ask for: a whole number of at least 1; anything else is reported and `bound` used. */
const operatorBound =
  (bound: number): Declaration<Reported<number>> =>
  (name) =>
    variable((raw) => {
      if (raw === undefined || raw.trim() === '') return { value: bound };
      const value = Number(raw);
      if (Number.isSafeInteger(value) && value >= 1) return { value };
      return { value: bound, problem: `${name} must be a whole number of at least 1, not ${JSON.stringify(raw)}; using ${bound}` };
    });

/** Whether a URL's host is the machine itself: `localhost`, `127.x.x.x` or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true;
  const parts = host.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

/**
 * A URL setting, unset or empty for none: https, or http on a loopback address (a local
 * server), with no query, no fragment, no user name or password in it. `what` names it in a refusal.
 */
const plainUrl =
  (what: string): Declaration<string | undefined> =>
  (name) =>
    variable((raw) => {
      if (raw === undefined || raw === '') return undefined;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return new Refused(`${name} must be ${what}, not ${JSON.stringify(raw)}`);
      }
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
        return new Refused(`${name} must be an https URL (http only on a loopback address), not ${JSON.stringify(raw)}`);
      }
      if (url.search || url.hash || url.username || url.password || raw.includes('?') || raw.includes('#')) {
        return new Refused(`${name} must be a plain URL, without query, fragment or credentials, not ${JSON.stringify(raw)}`);
      }
      return raw;
    });

/** `PASSWORD_LOGIN`: who may log in with a password. */
export const passwordLoginModes = ['on', 'superusers', 'off'] as const;
export type PasswordLoginMode = (typeof passwordLoginModes)[number];

/** The value of GRADING_SANDBOX that runs student code without any sandbox. */
export const UNSAFE_NO_SANDBOX = 'unsafe-none';

/**
 * `GRADING_SANDBOX`: unset, empty or `bwrap` for the bubblewrap sandbox; exactly `unsafe-none`
 * for none. Anything else is a mistake, reported, and the sandbox is kept.
 */
export function sandboxMode(env: Readonly<Record<string, string | undefined>>): { mode: 'bwrap' | 'unsafe-none'; problem?: string } {
  const raw = env.GRADING_SANDBOX?.trim() ?? '';
  if (raw === '' || raw === 'bwrap') return { mode: 'bwrap' };
  if (raw === UNSAFE_NO_SANDBOX) return { mode: 'unsafe-none' };
  return {
    mode: 'bwrap',
    problem: `GRADING_SANDBOX must be "bwrap" or "${UNSAFE_NO_SANDBOX}", not ${JSON.stringify(raw)}; the sandbox is used`,
  };
}

/** Seconds before each webhook retry (Standard Webhooks' suggestion, cut at two hours): 5 attempts over about 2.6 hours. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5, 300, 1800, 7200];

/**
 * `WEBHOOK_RETRY_SCHEDULE`: the seconds to wait before each retry, a comma list (fractions allowed,
 * which SQS rounds up to whole seconds); its length is the number of retries. Anything else is
 * reported and the default used.
 */
export function retrySchedule(raw: string | undefined): { delays: readonly number[]; problem?: string } {
  if (raw === undefined || raw.trim() === '') return { delays: DEFAULT_RETRY_SCHEDULE };
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (
    delays.length > 20 ||
    delays.some((delay) => !Number.isFinite(delay) || delay < 0 || delay > 86_400) ||
    raw.split(',').some((part) => part.trim() === '')
  ) {
    return {
      delays: DEFAULT_RETRY_SCHEDULE,
      problem: `WEBHOOK_RETRY_SCHEDULE must be a comma list of at most 20 delays in seconds (0 to 86400), not ${JSON.stringify(raw)}; the default ${DEFAULT_RETRY_SCHEDULE.join(',')} is used`,
    };
  }
  return { delays };
}

export const DEFAULT_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
export const DEFAULT_SIGNING_SECRET_GRACE_SECONDS = 7 * 24 * 60 * 60;
/** A worker's time limit in Lambda (its maximum, 15 minutes). */
export const DEFAULT_GRADING_LEASE_SECONDS = 15 * 60;
/** How long a job's lease lasts past its holder's last renewal, which comes every quarter of it. */
export const DEFAULT_GRADING_HEARTBEAT_LEASE_SECONDS = 2 * 60;

/** The settings declared, each declaration made for its own variable. */
function declare<D extends Record<string, Declaration<unknown>>>(declarations: D) {
  return Object.fromEntries(Object.entries(declarations).map(([name, declaration]) => [name, declaration(name)])) as {
    [K in keyof D]: ReturnType<D[K]>;
  };
}

/** Every setting: its variable, its default and what it means. docs/configuration.md lists the same. */
const settings = declare({
  // --- Tokens and requests ---------------------------------------------------------------------
  /** `TOKEN_TTL_SECONDS` (30 days): token lifetime; 0 means tokens never expire. */
  TOKEN_TTL_SECONDS: wholeNumber(0, DEFAULT_TOKEN_TTL_SECONDS),
  /** `TOKEN_ISSUER` (`course-submission-api`, also when empty): the JWT `iss` claim issued and required. */
  TOKEN_ISSUER: () => variable((raw) => raw || 'course-submission-api'),
  /** `LOGIN_MAX_FAILURES` (5) failed logins within `LOGIN_WINDOW_SECONDS` lock a user id … */
  LOGIN_MAX_FAILURES: wholeNumber(1, 5),
  /** `LOGIN_WINDOW_SECONDS` (15 minutes): … until the window ends. */
  LOGIN_WINDOW_SECONDS: wholeNumber(1, 15 * 60),
  /** `MAX_BODY_BYTES` (1 MiB): the largest JSON or form body accepted. */
  MAX_BODY_BYTES: wholeNumber(1, 1024 * 1024),
  /** `SUBMISSIONS_PER_MINUTE` (10): versions one student or team may submit of a gradeable within any minute. */
  SUBMISSIONS_PER_MINUTE: wholeNumber(1, 10),
  /**
   * `MAX_QUEUED_JOBS_PER_STUDENT` (5): grading jobs one student's own submissions may have queued or
   * being graded at once, across every gradeable of every course.
   */
  MAX_QUEUED_JOBS_PER_STUDENT: wholeNumber(1, 5),
  /**
   * `COURSE_BURST_PER_MINUTE` (60): submissions of one course within a minute whose jobs may take the
   * first lane of the grading queue; the course's further jobs that minute wait behind other courses' first ones.
   */
  COURSE_BURST_PER_MINUTE: wholeNumber(1, 60),
  /** `MAX_VERSIONS` (1000): versions one student or team may have of a gradeable (they share one DynamoDB item of 400 KB). */
  MAX_VERSIONS: wholeNumber(1, 1000),
  /**
   * `SIGNING_SECRET_GRACE_SECONDS` (7 days): after a rotation, tokens signed with the previous
   * signing secret still verify this long; 0 ends them at the rotation.
   */
  SIGNING_SECRET_GRACE_SECONDS: wholeNumber(0, DEFAULT_SIGNING_SECRET_GRACE_SECONDS),

  // --- Signing in through an identity provider (OpenID Connect) -----------------------------------
  /**
   * `OIDC_ISSUER` (none: off): the OpenID Connect issuer whose ID tokens `POST /api/token` takes,
   * its URL exactly as they name it.
   */
  OIDC_ISSUER: plainUrl("the identity provider's issuer URL"),
  /** `OIDC_CLIENT_ID` (none): this deployment's client id at the issuer; ID tokens must be for it. Required with `OIDC_ISSUER`. */
  OIDC_CLIENT_ID: (name) =>
    variable((raw) => {
      if (raw === undefined || raw === '') return undefined;
      if (raw.length > 256 || /\s/.test(raw)) return new Refused(`${name} must be a client id without spaces, of at most 256 characters`);
      return raw;
    }),
  /** `OIDC_USER_ID_CLAIM` (`preferred_username`, also when empty): the ID token claim that names the user. */
  OIDC_USER_ID_CLAIM: () => variable((raw) => raw || 'preferred_username'),
  /** `OIDC_USER_ID_SUFFIX` (none): a suffix (`@example.edu`) the claim must end with, stripped to give the user id. */
  OIDC_USER_ID_SUFFIX: text(),
  /** `OIDC_CREATE_USERS` (off): a first sign-in of an unknown user creates them (level `user`). */
  OIDC_CREATE_USERS: onOff(),
  /**
   * `OIDC_EMAILS_VERIFIED` (off): the identity provider verifies every e-mail address it puts in an
   * ID token, so one without `email_verified: true` is taken too. Off, an address counts only with
   * the boolean `true`.
   */
  OIDC_EMAILS_VERIFIED: onOff(),
  /**
   * `OIDC_SUPERUSERS` (off): with `PASSWORD_LOGIN=superusers`, superusers may also sign in through
   * the identity provider. Off, they log in with their password only, so an account at the
   * provider can never become a superuser here.
   */
  OIDC_SUPERUSERS: onOff(),
  /** `PASSWORD_LOGIN` (`on`): `on`, `superusers` (only superusers log in with a password) or `off`. */
  PASSWORD_LOGIN: (name) =>
    variable((raw): PasswordLoginMode | Refused => {
      if (raw === undefined || raw === '') return 'on';
      if ((passwordLoginModes as readonly string[]).includes(raw)) return raw as PasswordLoginMode;
      return new Refused(`${name} must be on, superusers or off, not ${JSON.stringify(raw)}`);
    }),

  // --- DynamoDB ----------------------------------------------------------------------------------
  /** `DYNAMODB_ENDPOINT` (AWS's): the DynamoDB endpoint; `npm start` points it at DynamoDB Local. */
  DYNAMODB_ENDPOINT: text(),
  /** `DYNAMODB_REQUEST_TIMEOUT_MS` (5000): how long one DynamoDB request may take; not a positive number: the default. */
  DYNAMODB_REQUEST_TIMEOUT_MS: positiveOr(5_000),
  /** `AWS_REGION` (set by Lambda): the region; with `DYNAMODB_ENDPOINT`, DynamoDB Local's client uses it or `local`. */
  AWS_REGION: text(),

  // --- Submitted files -------------------------------------------------------------------------
  /**
   * `S3_ENDPOINT` (AWS's): the S3 endpoint of the submissions bucket; `npm start` and the tests point
   * it at the local S3-compatible endpoint (path-style requests, its own credentials).
   */
  S3_ENDPOINT: text(),

  // --- Gradeables and grading --------------------------------------------------------------------
  /** `VCS_BASE_URL` (`https://git.example.edu`): where `submitty-hosted` repositories live; trailing slashes dropped. */
  VCS_BASE_URL: () => variable((raw) => (raw ?? 'https://git.example.edu').replace(/\/+$/, '')),
  /**
   * `GRADING_LEASE_SECONDS` (15 minutes): a worker's time for a wake-up (its builds' deadline, and
   * what it takes on after its first job); at most the worker's time limit. Not a positive number: the default.
   */
  GRADING_LEASE_SECONDS: positiveOr(DEFAULT_GRADING_LEASE_SECONDS),
  /**
   * `GRADING_HEARTBEAT_LEASE_SECONDS` (2 minutes): how long a job's lease lasts unless its worker
   * renews it, which a live worker does every quarter of it: a worker that dies leaves its job to
   * be taken over this long after its last renewal. Not a positive number: the default.
   */
  GRADING_HEARTBEAT_LEASE_SECONDS: positiveOr(DEFAULT_GRADING_HEARTBEAT_LEASE_SECONDS),
  /**
   * `GRADING_JOBS_PER_BUILD` (100): in AWS, the most queued jobs one CodeBuild build runs one after
   * another (each in fresh sandboxes); 1 starts a fresh build for every job.
   */
  GRADING_JOBS_PER_BUILD: wholeNumber(1, 100),
  /**
   * `GRADING_SANDBOX` (`bwrap`): `unsafe-none` runs students' code without any sandbox (development
   * only). Reported: any other value keeps the sandbox.
   */
  GRADING_SANDBOX: () => variable((raw) => sandboxMode({ GRADING_SANDBOX: raw })),
  /** `GRADING_MAX_PROCESSES` (256): the most processes (and threads) a gradeable may give a test case. Reported. */
  GRADING_MAX_PROCESSES: operatorBound(256),
  /** `GRADING_MAX_MEMORY_MIB` (2048): the most memory a gradeable may give a test case. Reported. */
  GRADING_MAX_MEMORY_MIB: operatorBound(2048),
  /** `GRADING_MAX_CPU_SECONDS` (600): the most CPU time per process a gradeable may give a test case. Reported. */
  GRADING_MAX_CPU_SECONDS: operatorBound(600),
  /** `GRADING_MAX_FILE_SIZE_MIB` (1024): the largest file size a gradeable may allow. Reported. */
  GRADING_MAX_FILE_SIZE_MIB: operatorBound(1024),
  /** `GRADING_MAX_DISK_MIB` (1024): the most disk a gradeable may give a test case (its tmpfs is memory). Reported. */
  GRADING_MAX_DISK_MIB: operatorBound(1024),
  /** `SUBMISSION_MAX_FILES` (1000): the most files a file submission may hold (zips unpacked); gradeables may ask for fewer. */
  SUBMISSION_MAX_FILES: wholeNumber(1, 1000),
  /** `SUBMISSION_MAX_BYTES` (100 MiB): the most bytes a file submission may hold (zips unpacked); gradeables may ask for fewer. */
  SUBMISSION_MAX_BYTES: wholeNumber(1, 100 * 1024 * 1024),
  /** `ALLOWED_GIT_HOSTS` (none): hosts repositories may be fetched from although they resolve to private addresses. */
  ALLOWED_GIT_HOSTS: hostList(),
  /**
   * `FILE_REPOSITORIES_DIR` (none: off): the folder `file://` repositories must lie in (local demo
   * only; `npm start` names one beside its data folder). An absolute path; unset or empty refuses
   * every `file://` repository.
   */
  FILE_REPOSITORIES_DIR: (name) =>
    variable((raw) => {
      if (raw === undefined || raw === '') return undefined;
      if (!raw.startsWith('/')) return new Refused(`${name} must be an absolute path, not ${JSON.stringify(raw)}`);
      return raw;
    }),

  // --- Grade summaries -----------------------------------------------------------------------------
  /**
   * `SUMMARIES_JOB_MIN_USERS` (1000): a course with at least this many members generates its
   * summaries on the summaries queue, `POST …/reports/summaries` answering a job object at once;
   * smaller courses are generated within the request, as before.
   */
  SUMMARIES_JOB_MIN_USERS: wholeNumber(1, 1000),

  // --- Webhooks ------------------------------------------------------------------------------------
  /** `WEBHOOK_ALLOWED_HOSTS` (none): hosts webhooks may reach although they resolve to private addresses, and over http. */
  WEBHOOK_ALLOWED_HOSTS: hostList(),
  /**
   * `LTI_ALLOWED_HOSTS` (none): the `host:port` pairs an LTI registration may name although they
   * resolve to loopback or private addresses, and over plain http (a platform on the operator's own
   * network, or a test platform).
   */
  LTI_ALLOWED_HOSTS: hostList(),
  /**
   * `LTI_FRONTEND_URL` (none: a page shows the code): where a launch sends the LMS's browser, with
   * `#lti_code=<code>` appended for the frontend to trade with `POST /api/token`. An https URL (http
   * on a loopback address), without query or fragment.
   */
  LTI_FRONTEND_URL: plainUrl("the frontend's URL"),
  /** `WEBHOOK_RETRY_SCHEDULE` (`5,300,1800,7200`): seconds before each retry of a delivery. Reported. */
  WEBHOOK_RETRY_SCHEDULE: () =>
    variable((raw): Reported<readonly number[]> => {
      const { delays, problem } = retrySchedule(raw);
      return { value: delays, ...(problem ? { problem } : {}) };
    }),

  // --- Local development ---------------------------------------------------------------------------
  /**
   * `CHECK_ANSWERS` (off): `npm start` checks every answer against its route's contract (the
   * OpenAPI document's schemas and fail messages), logging a mismatch and naming it in the
   * answer's `Answer-Mismatch` header. Read by the local server only.
   */
  CHECK_ANSWERS: onOff(),
  /**
   * `CORS_ORIGINS` (none: no CORS): browser origins `npm start` lets call the API and post to the
   * local S3 endpoint, as the stack's `corsOrigins` does in AWS (infra/cors.ts). Read by the local
   * server only.
   */
  CORS_ORIGINS: originList(),

  // --- Logs and metrics ----------------------------------------------------------------------------
  /** `POWERTOOLS_SERVICE_NAME` (`course-submission-api`): the service named in every log line. */
  POWERTOOLS_SERVICE_NAME: text('course-submission-api'),
  /** `POWERTOOLS_LOG_LEVEL` (`INFO`): the log level; read by Powertools itself. */
  POWERTOOLS_LOG_LEVEL: text(),
  /** `POWERTOOLS_METRICS_DISABLED` (`true` locally): no CloudWatch metrics printed (shared/http/metrics.ts). */
  POWERTOOLS_METRICS_DISABLED: text(),
});

export type Config = { [K in keyof typeof settings]: Exclude<ReturnType<(typeof settings)[K]>, Refused> };
export type ConfigName = keyof Config;
/** The operator's bounds on the grading limits gradeables may ask for. */
export type GradingBoundName = Extract<ConfigName, `GRADING_MAX_${string}`>;

/** Every setting's variable. */
export const configNames = Object.keys(settings) as ConfigName[];

/** What a submission is bounded by: submissionLimits(), maxQueuedJobsPerStudent() and courseBurstPerMinute(). */
export const SUBMISSION_SETTINGS = [
  'SUBMISSIONS_PER_MINUTE',
  'MAX_VERSIONS',
  'MAX_QUEUED_JOBS_PER_STUDENT',
  'COURSE_BURST_PER_MINUTE',
] as const satisfies readonly ConfigName[];

/** How the deployment signs people in: signInSettings() reads every one (and the start of every function checks them together). */
export const SIGN_IN_SETTINGS = [
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_USER_ID_CLAIM',
  'OIDC_USER_ID_SUFFIX',
  'OIDC_CREATE_USERS',
  'OIDC_EMAILS_VERIFIED',
  'OIDC_SUPERUSERS',
  'PASSWORD_LOGIN',
] as const satisfies readonly ConfigName[];

/**
 * The settings a deployment gives only to the functions whose code reads them: each function names
 * those it reads (`settings` in its definition, functions/<name>/definition.ts). In AWS its
 * environment holds each of them the deployment sets (infra/aws/stack.ts); locally a function sees
 * none of the others (infra/local/functions.ts), so a setting a function forgets to name is missing
 * locally as it would be in AWS.
 */
export const functionSettings = [
  ...SUBMISSION_SETTINGS,
  'SUMMARIES_JOB_MIN_USERS',
  ...SIGN_IN_SETTINGS,
  'ALLOWED_GIT_HOSTS',
  'WEBHOOK_ALLOWED_HOSTS',
  'WEBHOOK_RETRY_SCHEDULE',
  'LTI_ALLOWED_HOSTS',
  'LTI_FRONTEND_URL',
  'GRADING_LEASE_SECONDS',
] as const satisfies readonly ConfigName[];
export type FunctionSetting = (typeof functionSettings)[number];

/** A raw value checked as setting `name` checks it (the CDK app checks its context so); throws, naming the variable, when bad. */
export function parseSetting<K extends ConfigName>(name: K, raw: string | undefined): Config[K] {
  const value = settings[name](raw);
  if (value instanceof Refused) throw new Error(value.message);
  return value as Config[K];
}

const cache = new Map<ConfigName, { raw: Raw; value: unknown }>();
let validated = false;

/** Setting `name` as the running function sees it now; throws, naming the variable, when it is bad. */
export function config<K extends ConfigName>(name: K): Config[K] {
  if (!validated) validateConfig();
  const raw = setting(name);
  const cached = cache.get(name);
  if (cached && cached.raw === raw) return cached.value as Config[K];
  const value = parseSetting(name, raw);
  cache.set(name, { raw, value });
  return value;
}

/**
 * The whole configuration, checked: one error naming every bad setting (`TOKEN_TTL_SECONDS must be
 * a whole number of at least 0, not "x"; MAX_BODY_BYTES must be at least 1`). The first `config()`
 * of a process calls it.
 */
export function validateConfig(): Config {
  const values: Record<string, unknown> = {};
  const refusals: string[] = [];
  for (const name of configNames) {
    const value = settings[name](setting(name));
    if (value instanceof Refused) refusals.push(value.message);
    else values[name] = value;
  }
  if (refusals.length === 0) refusals.push(...signInProblems(values as Config));
  if (refusals.length > 0) throw new Error(refusals.join('; '));
  validated = true;
  return values as Config;
}

// --- The settings as the code uses them ---------------------------------------------------------

/** `TOKEN_TTL_SECONDS`: token lifetime; 0 means tokens never expire. */
export const tokenTtlSeconds = (): number => config('TOKEN_TTL_SECONDS');

/** `TOKEN_ISSUER`: the JWT `iss` claim issued and required. */
export const tokenIssuer = (): string => config('TOKEN_ISSUER');

/** `LOGIN_MAX_FAILURES` failed logins within `LOGIN_WINDOW_SECONDS` lock a user id until the window ends. */
export function loginLockout(): { maxFailures: number; windowSeconds: number } {
  return { maxFailures: config('LOGIN_MAX_FAILURES'), windowSeconds: config('LOGIN_WINDOW_SECONDS') };
}

/** `MAX_BODY_BYTES`: the largest JSON or form body accepted. */
export const maxBodyBytes = (): number => config('MAX_BODY_BYTES');

/** `SUBMISSIONS_PER_MINUTE` and `MAX_VERSIONS`: how much one student or team may submit of a gradeable. */
export function submissionLimits(): { perMinute: number; maxVersions: number } {
  return { perMinute: config('SUBMISSIONS_PER_MINUTE'), maxVersions: config('MAX_VERSIONS') };
}

/** `MAX_QUEUED_JOBS_PER_STUDENT`: one student's jobs queued or being graded at once. */
export const maxQueuedJobsPerStudent = (): number => config('MAX_QUEUED_JOBS_PER_STUDENT');
/** `COURSE_BURST_PER_MINUTE`: one course's submissions a minute that may take the first lane. */
export const courseBurstPerMinute = (): number => config('COURSE_BURST_PER_MINUTE');

/** `SUMMARIES_JOB_MIN_USERS`: courses with at least this many members generate their summaries on the queue. */
export const summariesJobMinUsers = (): number => config('SUMMARIES_JOB_MIN_USERS');

/** The sign-in settings that only make sense together: an issuer needs its client id, and someone must be able to log in. */
export function signInProblems(values: Pick<Config, 'OIDC_ISSUER' | 'OIDC_CLIENT_ID' | 'PASSWORD_LOGIN'>): string[] {
  const problems: string[] = [];
  if (values.OIDC_ISSUER && !values.OIDC_CLIENT_ID) problems.push('OIDC_CLIENT_ID must be set with OIDC_ISSUER');
  if (!values.OIDC_ISSUER && values.OIDC_CLIENT_ID) problems.push('OIDC_ISSUER must be set with OIDC_CLIENT_ID');
  if (!values.OIDC_ISSUER && values.PASSWORD_LOGIN !== 'on') {
    problems.push(`PASSWORD_LOGIN=${values.PASSWORD_LOGIN} needs OIDC_ISSUER (the way in for everyone else)`);
  }
  return problems;
}

/** How this deployment signs people in. */
export interface SignInSettings {
  readonly passwordLogin: PasswordLoginMode;
  /** Undefined when the deployment takes no ID tokens. */
  readonly oidc?: {
    readonly issuer: string;
    readonly clientId: string;
    readonly userIdClaim: string;
    readonly userIdSuffix: string | undefined;
    readonly createUsers: boolean;
    /** An e-mail address counts as verified without `email_verified: true`. */
    readonly emailsVerified: boolean;
    /** Superusers may sign in with an ID token where PASSWORD_LOGIN is `superusers`. */
    readonly superusers: boolean;
  };
}

export function signInSettings(): SignInSettings {
  const issuer = config('OIDC_ISSUER');
  const clientId = config('OIDC_CLIENT_ID');
  const passwordLogin = config('PASSWORD_LOGIN');
  if (!issuer || !clientId) return { passwordLogin };
  return {
    passwordLogin,
    oidc: {
      issuer,
      clientId,
      userIdClaim: config('OIDC_USER_ID_CLAIM'),
      userIdSuffix: config('OIDC_USER_ID_SUFFIX') || undefined,
      createUsers: config('OIDC_CREATE_USERS'),
      emailsVerified: config('OIDC_EMAILS_VERIFIED'),
      superusers: config('OIDC_SUPERUSERS'),
    },
  };
}
