import { runAsFunction } from '#shared/environment.ts';
import type { FunctionName } from '#infra/function-access.ts';
import { localFunctionScope } from '#infra/local/functions.ts';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { newTokenClaims } from '#shared/auth/tokens.ts';
import { signToken } from '#shared/auth/jwt.ts';
import type { Course } from '#shared/courses/course.ts';
import { putSession } from '#shared/data/sessions.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { matchRoute } from '#functions/definitions.ts';
import type { ApiEvent, ApiResult } from '#shared/http/types.ts';
import { addMember, createCourse, createTerm } from '../test/support/courses.ts';
import { apiEvent, lambdaContext } from '../test/support/events.ts';
import { createUser, type TestUser } from '../test/support/users.ts';

/**
 * The data every endpoint is exercised against: a term and course with an instructor, a full
 * access grader, students (one for reading, one for submitting), a superuser, users for logging in
 * and out, a VCS gradeable open for submission, and one queued submission of the reading student.
 */
export interface World {
  readonly course: Course;
  readonly gradeableId: string;
  readonly users: Record<'instructor' | 'ta' | 'student' | 'submitter' | 'superuser' | 'login' | 'logout', TestUser>;
  /** Authorization tokens (sessions written directly: no scrypt). */
  readonly tokens: Record<'instructor' | 'ta' | 'student' | 'submitter' | 'superuser', string>;
}

const DAY = 86_400_000;

/** Where the bench's git server serves a repository at every path (bench/run.ts): submissions read its head. */
let repositories: string | undefined;
export function useRepositories(url: string): void {
  repositories = url;
}

export function vcsGradeable(id: string, now = new Date()): Record<string, unknown> {
  const at = (days: number) => new Date(Math.floor(now.getTime() / 1000) * 1000 + days * DAY).toISOString();
  return {
    id,
    title: `Homework ${id}`,
    type: 'Electronic File',
    syllabus_bucket: 'homework',
    ta_grading: true,
    vcs: { repository_type: 'self-hosted', vcs_path: `${repositoryBase()}/bench-org/hw-{$user_id}`, vcs_subdirectory: '' },
    dates: {
      ta_view_start_date: at(-2),
      submission_open_date: at(-1),
      submission_due_date: at(7),
      grade_start_date: at(8),
      grade_due_date: at(14),
      grade_released_date: at(15),
      late_submission_allowed: true,
      late_days: 2,
    },
    autograding: {
      test_cases: [
        { name: 'Program runs', command: 'sh hello.sh', points_available: 2, expect: { exit_code: 0 } },
        { name: 'Prints a greeting', command: 'sh hello.sh', points_available: 3, expect: { stdout_contains: 'Hello' } },
        { name: 'Hidden', command: 'sh hello.sh World', points_available: 4, is_hidden: true, expect: { stdout: 'Hello, World!\n' } },
      ],
    },
  };
}

function repositoryBase(): string {
  if (!repositories) throw new Error('bench: no git server (useRepositories) for the gradeables to name');
  return repositories;
}

/** A token for `userId`, its session written directly (what POST /api/token does, minus scrypt). */
export async function sessionToken(userId: string): Promise<string> {
  const claims = newTokenClaims(userId);
  await transactWrite([putSession(claims)]);
  return signToken(claims);
}

export async function createWorld(options: { submit?: boolean } = {}): Promise<World> {
  const [instructor, ta, student, submitter, superuser, login, logout] = await Promise.all([
    createUser('faculty', 'instructor'),
    createUser('user', 'ta'),
    createUser('user', 'student'),
    createUser('user', 'submitter'),
    createUser('superuser', 'super'),
    createUser('user', 'login'),
    createUser('user', 'logout'),
  ]);
  const term = await createTerm('2026-08-24', 'Bench Term');
  const course = await createCourse(term, instructor);
  await Promise.all([addMember(course, ta, 2, null, ['1', '2']), addMember(course, student, 4, '1'), addMember(course, submitter, 4, '1')]);
  const gradeableId = await uploadGradeable(course, vcsGradeable('hw_bench'));
  const users = { instructor, ta, student, submitter, superuser, login, logout };
  const tokens = {
    instructor: await sessionToken(instructor.userId),
    ta: await sessionToken(ta.userId),
    student: await sessionToken(student.userId),
    submitter: await sessionToken(submitter.userId),
    superuser: await sessionToken(superuser.userId),
  };
  const world: World = { course, gradeableId, users, tokens };
  if (options.submit === false) return world;
  const answer = await invoke('submit-vcs', submitEvent(world, 'student'));
  if (answer.status !== 'success') throw new Error(`bench setup: submission failed: ${JSON.stringify(answer)}`);
  return world;
}

export function submitEvent(world: World, who: 'student' | 'submitter'): ApiEvent {
  const { course, gradeableId } = world;
  return request('POST', `/api/${course.term}/${course.course}/gradeable/${gradeableId}/upload`, {
    token: world.tokens[who],
    form: { user_id: world.users[who].userId, vcs_checkout: 'true', git_repo_id: 'none' },
  });
}

/** A payload 2.0 event for `method path`, with the route key and path parameters API Gateway would set. */
export function request(
  method: string,
  path: string,
  options: {
    token?: string;
    query?: Record<string, string>;
    json?: unknown;
    form?: Record<string, string>;
    text?: { readonly type: string; readonly body: string };
    headers?: Record<string, string>;
  } = {},
): ApiEvent {
  const match = matchRoute(method, path);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = options.token;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.text) {
    headers['content-type'] = options.text.type;
    body = options.text.body;
  }
  const event = apiEvent({ method, path, routeKey: match.kind === 'route' ? match.routeKey : '$default', headers, body });
  const query = options.query ?? {};
  return {
    ...event,
    rawQueryString: new URLSearchParams(query).toString(),
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(match.kind === 'route' ? { pathParameters: match.pathParameters } : {}),
  };
}

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;
const handlers = new Map<string, Handler>();

/** The exported `handler` of functions/<name>/handler.ts, imported once. */
export async function handlerOf(name: string): Promise<Handler> {
  let handler = handlers.get(name);
  if (!handler) {
    handler = (await import(`#functions/${name}/handler.ts`)).handler as Handler;
    handlers.set(name, handler);
  }
  return handler;
}

export interface Envelope {
  readonly status: string;
  readonly data?: unknown;
  readonly message?: string;
}

/**
 * Calls the handler in process, as Lambda would, and parses the envelope; an answer that is not
 * JSON (a page, a script) stands as its HTTP status, its body as data.
 */
export async function invoke(name: string, event: ApiEvent): Promise<Envelope> {
  const handler = await handlerOf(name);
  const result = await runAsFunction(localFunctionScope(name as FunctionName), () => handler(event, lambdaContext(randomUUID())));
  try {
    return JSON.parse(result.body ?? 'null') as Envelope;
  } catch {
    return { status: `HTTP ${result.statusCode ?? 200}`, data: result.body };
  }
}
