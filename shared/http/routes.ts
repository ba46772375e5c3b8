/**
 * The route table: the single source for the local server, the CDK stack and the API docs.
 * Each key names the handler module `functions/<key>.ts` (one Lambda function per entry).
 */
import type { CourseAccess } from '#shared/courses/access.ts';
import type { tables } from '#shared/data/tables.ts';

/**
 * DynamoDB actions by their IAM names (without `dynamodb:`). A transaction is authorized item by
 * item, so TransactWriteItems needs the action of each of its items (PutItem, UpdateItem,
 * DeleteItem, ConditionCheckItem). `Query <index>` queries one of the table's indexes.
 */
export type DataAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'Scan'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem'
  | `Query ${string}`;

export type DataUse = Readonly<Partial<Record<keyof typeof tables, readonly DataAction[]>>>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route.
 * - `public`: no token is read (the token endpoints take credentials in the body);
 * - `token-optional`: a token is checked when one is sent;
 * - `user`: any valid token; `faculty`: access level faculty or superuser; `superuser`;
 * - `course:…`: a role in the course named by the `{semester}` and `{course}` path parameters
 *   (see CourseAccess); the course is loaded with the token check.
 */
export type Access = 'public' | 'token-optional' | 'user' | 'faculty' | 'superuser' | CourseAccess;

/** Who may call a route, in words (the README's route table and the OpenAPI document). */
export const whoMayCall: Readonly<Record<Access, string>> = {
  public: 'anyone, no token needed',
  'token-optional': 'anyone; a token, when sent, must be valid',
  user: 'any valid token',
  faculty: 'faculty and superusers',
  superuser: 'superusers',
  'course:member': 'course members',
  'course:staff': 'course instructors and graders',
  'course:instructor': 'course instructors',
  'course:instructor-or-group-staff':
    "course staff; instructors and full access graders of the unarchived courses of the course's access group may read",
  'course:instructor-or-superuser': 'course instructors and superusers',
};

export interface RouteDefinition {
  readonly method: HttpMethod;
  /** API Gateway path syntax: `/api/{semester}/{course}/users`. */
  readonly path: string;
  /** Further paths served by the same function (the reference system moved some routes). */
  readonly aliases?: readonly string[];
  readonly access: Access;
  readonly summary: string;
  /**
   * What the handler itself does with each table, as DynamoDB actions: its function is granted
   * exactly these (and its environment names exactly these tables). The shared middleware's reads
   * are added from `access` (see infra/function-access.ts): never list them here. Items a handler
   * declares in `reads` are fetched in the token check's BatchGetItem, so their tables need
   * `BatchGetItem`.
   */
  readonly data?: DataUse;
  /** `send`: the handler wakes the grading workers (SQS SendMessage on the grading queue). */
  readonly queue?: 'send';
  /** `publish`: the handler publishes webhook events (SQS SendMessage on the webhook queue). */
  readonly events?: 'publish';
  /** `send`: the handler queues summaries jobs (SQS SendMessage on the summaries queue). */
  readonly summariesQueue?: 'send';
  /** The success answer carries a strong ETag; a request whose If-None-Match matches it gets 304 Not Modified. */
  readonly etag?: true;
}

/**
 * A change of a course field that the courses list copies onto enrollments (display name,
 * archived): the course item in steps, the copies, the term the copies include, its audit entry.
 */
function courseChangeData() {
  return {
    courses: ['UpdateItem', 'GetItem', 'ConditionCheckItem'],
    enrollments: ['Query', 'UpdateItem'],
    terms: ['GetItem', 'ConditionCheckItem'],
    audit: ['PutItem'],
  } as const satisfies DataUse;
}

export const routes = {
  'issue-token': {
    method: 'POST',
    path: '/api/token',
    access: 'public',
    summary: 'Log in with user_id and password; returns a token and invalidates the previous one.',
    data: { sessions: ['PutItem'], credentials: ['Query', 'UpdateItem', 'PutItem', 'ConditionCheckItem', 'DeleteItem'] },
  },
  'invalidate-token': {
    method: 'POST',
    path: '/api/token/invalidate',
    access: 'token-optional',
    summary: "Invalidate the user's token, given user_id and password or the token itself.",
    data: { sessions: ['DeleteItem'], credentials: ['Query', 'UpdateItem', 'PutItem', 'ConditionCheckItem', 'DeleteItem'] },
  },
  'token-info': {
    method: 'GET',
    path: '/api/token',
    access: 'user',
    summary: 'Who the presented token belongs to, when it was issued and when it expires.',
  },
  me: {
    method: 'GET',
    path: '/api/me',
    access: 'user',
    summary: "The caller's user id and names.",
  },
  'list-courses': {
    method: 'GET',
    path: '/api/courses',
    access: 'user',
    summary: "The caller's unarchived and archived courses; superusers may pass user_id for another user's.",
    data: { enrollments: ['Query byUser'], courses: ['BatchGetItem'], terms: ['BatchGetItem'] },
  },
  'create-course': {
    method: 'POST',
    path: '/api/courses',
    access: 'faculty',
    summary: 'Create a course from a base course (joining its access group); faculty for themselves, superusers for anyone.',
    data: {
      courses: ['BatchGetItem', 'PutItem', 'ConditionCheckItem'],
      enrollments: ['BatchGetItem', 'PutItem'],
      accessGroups: ['Query', 'PutItem'],
      gradeables: ['Query', 'PutItem'],
      // The head instructor's enrollment copies the profile and the term only if they did not change since read.
      terms: ['BatchGetItem', 'ConditionCheckItem'],
      users: ['BatchGetItem', 'ConditionCheckItem'],
    },
  },
  'course-users': {
    method: 'GET',
    path: '/api/{semester}/{course}/users',
    aliases: ['/api/courses/{semester}/{course}/users'],
    access: 'course:instructor-or-group-staff',
    summary:
      'Everyone in the course: the whole list by default, paged with page_size and cursor when asked (or when too big for one answer).',
    data: { enrollments: ['Query'], users: ['BatchGetItem'] },
  },
  'course-graders': {
    method: 'GET',
    path: '/api/{semester}/{course}/graders',
    aliases: ['/api/courses/{semester}/{course}/graders'],
    access: 'course:instructor-or-group-staff',
    summary:
      'The instructors and graders of the course, with the sections they grade: whole by default, paged when asked, as the users list.',
    data: { enrollments: ['Query'], users: ['BatchGetItem'] },
  },
  'create-term': {
    method: 'POST',
    path: '/api/terms',
    access: 'superuser',
    summary: 'Create a term: term_id, term_name, start_date and end_date (YYYY-MM-DD).',
    data: { terms: ['PutItem'] },
  },
  'upload-gradeable': {
    method: 'POST',
    path: '/api/{semester}/{course}/upload',
    access: 'course:instructor',
    summary:
      'Create a gradeable from gradeable JSON; data is its id. Every problem is listed in data. With dry_run=true: checked, and answered as it would be stored, writing nothing.',
    data: { gradeables: ['BatchGetItem', 'PutItem'], courses: ['ConditionCheckItem'], audit: ['PutItem'] },
  },
  'download-gradeable': {
    method: 'GET',
    path: '/api/{semester}/{course}/{gradeable_id}/download',
    access: 'course:instructor-or-group-staff',
    summary:
      "The gradeable JSON, ready to upload again (into another course too) or to change with PUT (its ETag goes in If-Match). Hidden test cases' command and expect reach instructors only: others get them left out, marked hidden_test_cases_redacted.",
    data: { gradeables: ['BatchGetItem'] },
    etag: true,
  },
  'list-gradeables': {
    method: 'GET',
    path: '/api/{semester}/{course}/gradeables',
    access: 'course:member',
    summary: "The gradeables the caller may see now, keyed by id, with the caller's own repository URL.",
    data: { gradeables: ['Query'] },
  },
  'submit-vcs': {
    method: 'POST',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/upload',
    aliases: ['/api/{semester}/{course}/gradeable/{gradeable_id}/grade'],
    access: 'course:member',
    summary:
      'Submit a version-control gradeable (user_id, vcs_checkout=true, git_repo_id): a new version, queued for grading. Honours Idempotency-Key.',
    data: {
      gradeables: ['BatchGetItem', 'ConditionCheckItem'],
      enrollments: ['BatchGetItem'],
      teams: ['BatchGetItem', 'UpdateItem'],
      submissions: ['BatchGetItem', 'UpdateItem'],
      jobs: ['BatchGetItem', 'UpdateItem', 'PutItem'],
      idempotency: ['BatchGetItem', 'PutItem'],
      lateDays: ['BatchGetItem'],
    },
    queue: 'send',
  },
  'gradeable-values': {
    method: 'GET',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/values',
    access: 'course:member',
    summary: "Submission and autograding state of the caller's (or, for staff, user_id's) active version.",
    data: { gradeables: ['BatchGetItem'], teams: ['BatchGetItem'], submissions: ['BatchGetItem'], jobs: ['BatchGetItem'] },
    etag: true,
  },
  'gradeable-attempts': {
    method: 'GET',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/attempts',
    access: 'course:member',
    summary: "The caller's (or, for staff, user_id's) versions, newest first: whole by default, paged when asked.",
    data: { gradeables: ['BatchGetItem'], teams: ['BatchGetItem'], submissions: ['BatchGetItem'], jobs: ['BatchGetItem'] },
    etag: true,
  },
  'save-ta-grade': {
    method: 'POST',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/grading/{user_id}',
    access: 'course:staff',
    summary:
      "Grade one rubric component of a student's (or their team's) TA grade: marks, custom points and comment, kept with an audit entry. Limited access graders: their sections.",
    data: {
      gradeables: ['BatchGetItem', 'ConditionCheckItem'],
      enrollments: ['BatchGetItem'],
      teams: ['BatchGetItem'],
      submissions: ['BatchGetItem', 'UpdateItem'],
      gradeAudit: ['PutItem'],
    },
  },
  'ta-grade': {
    method: 'GET',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/grading/{user_id}',
    access: 'course:staff',
    summary:
      "A student's (or their team's) TA grade, component by component, with its audit trail. Limited access graders: their sections.",
    data: {
      gradeables: ['BatchGetItem'],
      enrollments: ['BatchGetItem'],
      teams: ['BatchGetItem'],
      submissions: ['BatchGetItem'],
      gradeAudit: ['Query'],
    },
  },
  'set-active-version': {
    method: 'POST',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/version',
    access: 'course:member',
    summary:
      "Choose the caller's (or, for instructors and full access graders, user_id's) active version; version 0 cancels the submission. Values, late days and summaries follow it.",
    data: {
      gradeables: ['BatchGetItem'],
      enrollments: ['BatchGetItem'],
      teams: ['BatchGetItem', 'UpdateItem'],
      submissions: ['BatchGetItem', 'UpdateItem'],
      results: ['BatchGetItem'],
    },
  },
  gradebook: {
    method: 'GET',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/gradebook',
    access: 'course:staff',
    summary:
      "One gradeable's gradebook: every student's submission state, active version, autograding and TA scores, late days and grader, by section then user, paged with a cursor. Limited access graders: their sections.",
    data: { gradeables: ['Query'], enrollments: ['Query'], submissions: ['Query'], teams: ['Query'], lateDays: ['Query'] },
  },
  regrade: {
    method: 'POST',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/regrade',
    access: 'course:instructor',
    summary:
      "Queue versions for grading again (after fixing a test case): every active version, user_id's active version (on team gradeables their team's), or with version_to_regrade that version. Answers a job object reporting progress.",
    data: {
      gradeables: ['BatchGetItem'],
      enrollments: ['BatchGetItem'],
      teams: ['BatchGetItem'],
      submissions: ['BatchGetItem', 'Query', 'UpdateItem'],
      jobs: ['BatchGetItem', 'UpdateItem', 'PutItem'],
    },
    queue: 'send',
  },
  'regrade-status': {
    method: 'GET',
    path: '/api/{semester}/{course}/regrades/{regrade_id}',
    access: 'course:instructor',
    summary: 'A regrade job object with its progress now: queued, running or done, and how many versions were graded, failed or skipped.',
    data: { jobs: ['BatchGetItem'] },
  },
  'generate-summaries': {
    method: 'POST',
    path: '/api/{semester}/{course}/reports/summaries',
    aliases: ['/api/courses/{semester}/{course}/reports/summaries'],
    access: 'course:instructor',
    summary:
      'Generate every grade summary of the course (the nightly schedule runs the same function for all courses). A course of SUMMARIES_JOB_MIN_USERS members or more is generated on the summaries queue: the answer is a job object at once.',
    data: {
      summaries: ['Query', 'BatchWriteItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      courses: ['Scan', 'BatchGetItem', 'UpdateItem'],
      enrollments: ['Query'],
      users: ['BatchGetItem'],
      gradeables: ['Query'],
      submissions: ['Query'],
      teams: ['Query'],
      lateDays: ['Query'],
    },
    events: 'publish',
    summariesQueue: 'send',
  },
  'summaries-job': {
    method: 'GET',
    path: '/api/{semester}/{course}/reports/summaries/jobs/{job_id}',
    access: 'course:instructor',
    summary: 'A summaries job object with its progress now: queued, running, done (with its generation) or failed (with why).',
    data: { summaries: ['BatchGetItem'] },
  },
  'list-summaries': {
    method: 'GET',
    path: '/api/{semester}/{course}/reports/summaries',
    aliases: ['/api/courses/{semester}/{course}/reports/summaries'],
    access: 'course:instructor',
    summary: 'The grade summaries of the last generation, with its time, by user id, paged with a cursor (100 a page by default).',
    data: { summaries: ['Query'] },
  },
  'user-summary': {
    method: 'GET',
    path: '/api/{semester}/{course}/reports/summaries/{user_id}',
    aliases: ['/api/courses/{semester}/{course}/reports/summaries/{user_id}'],
    access: 'course:member',
    summary: "One user's grade summary: instructors any, students their own.",
    data: { summaries: ['BatchGetItem'] },
  },
  'set-course-late-days': {
    method: 'PUT',
    path: '/api/{semester}/{course}/late-days',
    access: 'course:instructor',
    summary: 'Set the late-day budget every student of the course starts with (default_student_late_days).',
    data: { courses: ['UpdateItem'] },
  },
  'grant-late-days': {
    method: 'POST',
    path: '/api/{semester}/{course}/late-days/{user_id}',
    access: 'course:instructor',
    summary: 'Grant a student late days: from since on, their budget is allowed_late_days in all (days already charged included).',
    data: { enrollments: ['BatchGetItem'], lateDays: ['BatchGetItem', 'UpdateItem'] },
  },
  'set-extension': {
    method: 'PUT',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}/extensions/{user_id}',
    access: 'course:instructor',
    summary:
      "Set a student's extension on a gradeable: late_days days late neither charged nor bad (0 removes it), with reason_for_exception.",
    data: { gradeables: ['BatchGetItem'], enrollments: ['BatchGetItem'], lateDays: ['BatchGetItem', 'UpdateItem'] },
  },
  'student-late-days': {
    method: 'GET',
    path: '/api/{semester}/{course}/late-days/{user_id}',
    access: 'course:member',
    summary:
      "A student's late days: the course's budget, their grants, the budget left, and each gradeable's allowance, extension, days late and charged, and status. Students their own; limited access graders their sections.",
    data: {
      enrollments: ['BatchGetItem'],
      lateDays: ['BatchGetItem'],
      gradeables: ['Query'],
      submissions: ['Query byStudent'],
      teams: ['Query byStudent'],
    },
  },
  'create-webhook': {
    method: 'POST',
    path: '/api/{semester}/{course}/webhooks',
    access: 'course:instructor',
    summary: 'Register a webhook (an HTTPS url and the events it receives); data holds its signing secret, shown this once.',
    data: { webhooks: ['Query', 'PutItem'], webhookSecrets: ['PutItem'] },
  },
  'list-webhooks': {
    method: 'GET',
    path: '/api/{semester}/{course}/webhooks',
    access: 'course:instructor',
    summary: "The course's webhooks (without their secrets).",
    data: { webhooks: ['Query'] },
  },
  'delete-webhook': {
    method: 'DELETE',
    path: '/api/{semester}/{course}/webhooks/{webhook_id}',
    access: 'course:instructor',
    summary: 'Remove a webhook and its secret; nothing more is delivered to it.',
    data: { webhooks: ['DeleteItem'], webhookSecrets: ['DeleteItem'] },
  },
  'list-webhook-deliveries': {
    method: 'GET',
    path: '/api/{semester}/{course}/webhooks/{webhook_id}/deliveries',
    access: 'course:instructor',
    summary: "A webhook's deliveries, newest first, each with its payload and every attempt (state=failed: those that gave up).",
    data: { webhooks: ['BatchGetItem'], webhookDeliveries: ['Query'] },
  },
  'replay-webhook-delivery': {
    method: 'POST',
    path: '/api/{semester}/{course}/webhooks/{webhook_id}/deliveries/{delivery_id}/replay',
    access: 'course:instructor',
    summary: 'Send a finished delivery (failed after its last retry, or delivered) again, with a fresh round of retries.',
    data: { webhooks: ['BatchGetItem'], webhookDeliveries: ['BatchGetItem', 'UpdateItem'] },
    events: 'publish',
  },
  'replace-gradeable': {
    method: 'PUT',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}',
    access: 'course:instructor',
    summary:
      "Replace a gradeable with gradeable JSON as download gives it (If-Match: the download's ETag). Its type, version control and teams cannot change once something was submitted or graded. With dry_run=true: checked, writing nothing.",
    data: {
      gradeables: ['BatchGetItem', 'UpdateItem'],
      submissions: ['Query'],
      teams: ['Query'],
      audit: ['PutItem'],
    },
  },
  'delete-gradeable': {
    method: 'DELETE',
    path: '/api/{semester}/{course}/gradeable/{gradeable_id}',
    access: 'course:instructor',
    summary:
      'Delete a gradeable nothing was submitted to or graded on, and that has no teams; data is the deleted gradeable JSON. Honours If-Match.',
    data: { gradeables: ['BatchGetItem', 'UpdateItem', 'DeleteItem'], submissions: ['Query'], teams: ['Query'], audit: ['PutItem'] },
  },
  'course-config': {
    method: 'GET',
    path: '/api/courses/{semester}/{course}/config',
    access: 'course:instructor',
    summary: "The course's settings: course_name, default_student_late_days, timezone, course_status, archived, access_group.",
  },
  'set-course-config': {
    method: 'POST',
    path: '/api/courses/{semester}/{course}/config',
    access: 'course:instructor',
    summary: 'Set one setting of the course: name (course_name, default_student_late_days or timezone) and entry; answers the settings.',
    data: courseChangeData(),
  },
  'archive-course': {
    method: 'POST',
    path: '/api/courses/{semester}/{course}/config/archive',
    access: 'course:instructor-or-superuser',
    summary:
      "Archive the course (instructors with faculty access level, and superusers): it leaves its students' course lists and its access group's reading.",
    data: courseChangeData(),
  },
  'unarchive-course': {
    method: 'POST',
    path: '/api/courses/{semester}/{course}/config/unarchive',
    access: 'course:instructor-or-superuser',
    summary: 'Unarchive the course (instructors with faculty access level, and superusers).',
    data: courseChangeData(),
  },
  openapi: {
    method: 'GET',
    path: '/api/openapi.json',
    access: 'public',
    summary: 'This API as an OpenAPI 3.1 document (served as is, not in an envelope).',
  },
  'api-docs': {
    method: 'GET',
    path: '/api/docs',
    access: 'public',
    summary: 'This API’s reference page (HTML), rendered from the OpenAPI document, with "try it" calls against this server.',
  },
  'api-docs-asset': {
    method: 'GET',
    path: '/api/docs/{asset}',
    access: 'public',
    summary: 'The reference page’s script and style sheet (versioned names, cached for a year).',
  },
} as const satisfies Record<string, RouteDefinition>;

export type RouteName = keyof typeof routes;

export interface RouteKey {
  readonly name: RouteName;
  readonly method: HttpMethod;
  readonly path: string;
}

/** Every (method, path) pair the API serves, aliases included: one API Gateway route each. */
export const routeKeys: readonly RouteKey[] = Object.entries(routes).flatMap(([name, route]) =>
  [route.path, ...((route as RouteDefinition).aliases ?? [])].map((path) => ({
    name: name as RouteName,
    method: route.method,
    path,
  })),
);

export type RouteMatch =
  | { kind: 'route'; name: RouteName; routeKey: string; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: HttpMethod[] }
  /** The path would match but for an empty parameter segment (`/api/f26/sample//download`). */
  | { kind: 'missing-parameter'; parameter: string }
  | { kind: 'not-found' };

const compiled = routeKeys.map((key) => ({ ...key, segments: key.path.split('/').slice(1) }));

/**
 * Matches a request the way API Gateway does: literal segments win over parameters. A path served
 * only with other methods is "method not allowed"; anything else is "not found".
 */
export function matchRoute(method: string, path: string): RouteMatch {
  const decoded = path.split('/').slice(1).map(safeDecode);
  if (decoded.some((segment) => segment === undefined)) return { kind: 'not-found' };
  if (decoded.some((segment) => segment === '')) return missingParameter(decoded as string[]);

  const candidates = compiled
    .map((route) => ({ route, score: matchScore(route.segments, decoded as string[]) }))
    .filter((candidate) => candidate.score >= 0)
    .sort((a, b) => b.score - a.score);
  if (candidates.length === 0) return { kind: 'not-found' };

  const best = candidates.find((candidate) => candidate.route.method === method.toUpperCase());
  if (!best) {
    return { kind: 'method-not-allowed', allowed: [...new Set(candidates.map((c) => c.route.method))] };
  }
  const pathParameters: Record<string, string> = {};
  best.route.segments.forEach((segment, index) => {
    const parameter = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (parameter) pathParameters[parameter] = decoded[index] ?? '';
  });
  return {
    kind: 'route',
    name: best.route.name,
    routeKey: `${best.route.method} ${best.route.path}`,
    pathParameters,
  };
}

function missingParameter(segments: string[]): RouteMatch {
  for (const route of compiled) {
    if (route.segments.length !== segments.length) continue;
    const empty = route.segments.findIndex((segment, index) => segments[index] === '' && segment.startsWith('{'));
    const rest = segments.map((segment, index) => (index === empty ? 'x' : segment));
    if (empty >= 0 && !rest.includes('') && matchScore(route.segments, rest) >= 0) {
      return { kind: 'missing-parameter', parameter: (route.segments[empty] ?? '').slice(1, -1) };
    }
  }
  return { kind: 'not-found' };
}

/** -1 when the route does not match; otherwise higher for more literal segments, leftmost first. */
function matchScore(routeSegments: readonly string[], requestSegments: readonly string[]): number {
  if (routeSegments.length !== requestSegments.length) return -1;
  let score = 0;
  for (const [index, segment] of routeSegments.entries()) {
    const literal = !segment.startsWith('{');
    if (literal && segment !== requestSegments[index]) return -1;
    score = score * 2 + (literal ? 1 : 0);
  }
  return score;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
