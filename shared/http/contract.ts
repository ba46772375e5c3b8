/**
 * The API contract beside the route table: for every route, the `data` of its success envelope and
 * the `fail` messages it can answer with their HTTP status (sent with `Prefer: http-status`); what
 * it accepts is declared in inputs.ts. `shared/http/openapi.ts` renders both, together with
 * routes.ts, as an OpenAPI 3.1 document. The failures every route shares (token, course, body
 * parsing, a field not of its kind) are added there from the route's access and inputs, so only
 * each route's own are listed here. Light on purpose: the openapi function bundles it.
 */
import { gradeableTypes } from '#shared/gradeables/gradeable.ts';
import { gradeableJsonSchema } from '#shared/gradeables/schema.ts';
import { blankCredentials, tooManyFailedLogins, wrongCredentials } from '#shared/auth/failures.ts';
import {
  badCourseTitle,
  badSemester,
  badTermDates,
  badTermId,
  blankTermName,
  courseExistsAlready,
  courseFieldsMissing,
  instructorNotInGroup,
  invalidBaseCourse,
  noHeadInstructor,
  noSuchSemester,
  notForYourself,
  notOnTeam,
  termEndsBeforeStart,
  termExistsAlready,
  termFieldsMissing,
  tooManyGradeablesToCopy,
  userNotInCourse,
  accountFieldsMissing,
  badAccountField,
  badGroup,
  badSection,
  badUserId,
  classListHeader,
  classListMissing,
  classListTooLong,
  classListUnreadable,
  gradingSectionsOfGraders,
  groupRequired,
  lastInstructor,
  memberChanged,
  tooManyGradingSections,
} from '#shared/courses/failures.ts';
import { badCursor, badPageSize } from '#shared/paging.ts';
import {
  badGrantStart,
  badIdempotencyKey,
  daysRequired,
  gitRepoIdMissing,
  idempotencyKeyReused,
  noGradedGradeable,
  nothingSubmitted,
  notSameUser,
  onlyElectronicLateDays,
  onlyElectronicVersions,
  onlyVcs,
  repositoryUnreadable,
  tooManyJobs,
  tooManySubmissions,
  tooManyVersions,
  versionMissing,
} from '#shared/submissions/failures.ts';
import {
  noActiveVersionToRegrade,
  nothingToRegrade,
  regradeNotFound,
  regradeOnlyVcs,
  regradeVersionNeedsUser,
  regradeVersionNotWhole,
} from '#shared/grading/failures.ts';
import { noSummary, summariesJobNotFound, summariesRegenerated } from '#shared/summaries/failures.ts';
import { invalidGradeableId, noSuchVersion } from '#shared/gradeables/failures.ts';
import {
  componentMissing,
  customPointsBeyondSpan,
  gradeChanged,
  gradeRace,
  gradingNotStarted,
  markTwice,
  noComponent,
  noMark,
  noStudent,
  notTaGraded,
  notYourSection,
} from '#shared/tagrading/failures.ts';
import {
  badDeliveryState,
  deliveryNotFound,
  needsUrlAndEvents,
  stillAttempting,
  tooManyWebhooks,
  unknownEvent,
  urlNotAbsolute,
  urlWithCredentials,
  webhookNotFound,
} from '#shared/webhooks/failures.ts';
import { accessDenied, type Failure } from '#shared/errors.ts';
import { CODE, DELIVERY_ID, REGRADE_ID, SUMMARIES_JOB_ID, WEBHOOK_ID } from '#shared/ids.ts';
import { webhookEvents } from '#shared/webhooks/webhook.ts';
import { refusalStatus } from './failures.ts';
import type { JsonSchema } from './fields.ts';
import type { RouteName } from './routes.ts';

export type { JsonSchema };

/** The statuses `Prefer: http-status` brings out. */
export type HttpStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 500;

export interface FailCase {
  readonly status: HttpStatus;
  /** The message; `{name}` marks a part filled in per request. */
  readonly message: string;
  /** Present when the envelope carries `data` with the message. */
  readonly data?: JsonSchema;
  /** Response headers sent with it (`Retry-After`). */
  readonly headers?: readonly string[];
}

/**
 * A route's answers. What it reads (parameters, headers, body fields) is declared in inputs.ts;
 * a route taking one JSON document has its schema here.
 */
export interface RouteContract {
  /** The JSON document a route takes as its body (JSON only). */
  readonly document?: { readonly schema: JsonSchema; readonly description: string };
  /** The success envelope's `data`. */
  readonly data: JsonSchema;
  /** This route's own fail messages (the shared ones are added from its access). */
  readonly fails: readonly FailCase[];
  /** Answered as is, not in an envelope (the OpenAPI document, the reference page); failures still are envelopes. */
  readonly raw?: true;
  /** Response headers its success answer may carry (`Link` to a paged list's next page). */
  readonly successHeaders?: readonly string[];
  /** The media types of a raw answer (default `application/json`). */
  readonly rawMediaTypes?: readonly string[];
  readonly tag: Tag;
}

/** A declared failure as the contract lists it: its template, and the status of its kind. */
export const fail = (declared: Failure): FailCase => ({
  status: refusalStatus[declared.kind] as HttpStatus,
  message: declared.template,
  ...(declared.kind === 'too-many-requests' ? { headers: ['Retry-After'] } : {}),
});

export const tags = {
  Tokens: 'Logging in and out.',
  Users: 'The caller and course memberships.',
  Courses: 'Terms, courses and the people in them.',
  Gradeables: 'Assignments as gradeable JSON.',
  Submissions: 'Submitting and autograding.',
  Grading: 'TA grading: rubric components graded per student or team, with an audit trail.',
  Summaries: 'Grade summaries (Rainbow Grades).',
  Webhooks:
    'Grading notifications: HTTPS callbacks per course, signed by the Standard Webhooks scheme, retried with back-off; the events are described under Webhooks of this document.',
  Meta: 'This document and the reference page.',
} as const;
export type Tag = keyof typeof tags;

const ref = (name: keyof typeof schemas): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const object = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  ...extra,
});
const string: JsonSchema = { type: 'string' };
const integer: JsonSchema = { type: 'integer' };
const number: JsonSchema = { type: 'number' };
const boolean: JsonSchema = { type: 'boolean' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const lateDayCount: JsonSchema = { type: 'integer', minimum: 0 };
const localDate: JsonSchema = { type: 'string', description: '`YYYY-MM-DD HH:MM:SS` in the course time zone.' };

const courseRecord = object({
  semester: string,
  title: string,
  display_name: string,
  display_semester: string,
  user_group: {
    type: 'integer',
    enum: [1, 2, 3, 4],
    description: '1 instructor, 2 full access grader, 3 limited access grader, 4 student.',
  },
  registration_section: nullable(string),
});

/** Reusable schemas: components.schemas of the document. */
export const schemas = {
  Course: courseRecord,
  CourseUser: object({
    first_name: string,
    last_name: string,
    user_id: string,
    email: string,
    reg_section: {
      type: 'string',
      description: 'Registration section (`NULL` for none); on the graders list the sections graded, `All` for instructors.',
    },
    rot_section: string,
    group: { type: 'string', enum: ['Instructor', 'Full Access Grader (Grad TA)', 'Limited Access Grader (Mentor)', 'Student'] },
    given_name: string,
    family_name: string,
  }),
  Term: object({
    term_id: { type: 'string', pattern: CODE.source },
    term_name: string,
    start_date: { type: 'string', format: 'date' },
    end_date: { type: 'string', format: 'date' },
  }),
  Gradeable: gradeableJsonSchema,
  GradeableListing: object({
    id: string,
    title: string,
    instructions_url: string,
    syllabus_bucket: string,
    gradeable_type: { type: 'string', enum: [...gradeableTypes] },
    section: { type: 'integer', minimum: 0, maximum: 5 },
    section_name: { type: 'string', enum: ['FUTURE', 'BETA', 'OPEN', 'CLOSED', 'GRADING', 'GRADED'] },
    due_date: nullable(object({ date: string, timezone_type: integer, timezone: string })),
    vcs_repository: nullable(string),
    vcs_subdirectory: nullable(string),
  }),
  Values: object({
    is_queued: boolean,
    queue_position: { type: 'integer', minimum: -1, description: '1-based place in the queue, 0 while grading, -1 otherwise.' },
    is_grading: boolean,
    has_submission: boolean,
    autograding_complete: boolean,
    has_active_version: boolean,
    highest_version: integer,
    total_points: nullable(number),
    total_percent: nullable(number),
    commit: {
      ...nullable({ type: 'string', pattern: '^[0-9a-f]{40}$' }),
      description: "The active version's commit (see Attempt's `commit`); null without an active version or a recorded commit.",
    },
    test_cases: {
      type: 'array',
      items: object({
        name: string,
        details: string,
        is_extra_credit: boolean,
        points_available: number,
        has_extra_results: boolean,
        points_received: number,
        testcase_message: string,
        autochecks: { type: 'array', items: { type: 'object' } },
      }),
    },
    ta_grading: {
      type: 'boolean',
      description: 'Whether TA grading counts (Checkpoints and Numeric: always; Electronic File: ta_grading).',
    },
    ta_grades_released: {
      type: 'boolean',
      description: 'Whether grade_released_date has passed; students see TA scores and comments only then.',
    },
    ta_grading_complete: { type: 'boolean', description: 'Every rubric component has a (visible) grade.' },
    tagrading_score: nullable({
      type: 'number',
      description: 'The sum of the graded components’ scores (never below 0); null when none is graded or visible.',
    }),
    tagrading_max: { type: 'number', description: 'The sum of the components’ max_value.' },
    total_score: nullable({ type: 'number', description: 'Autograding (total_points) plus TA points, never below 0.' }),
    ta_components: { type: 'array', items: { $ref: '#/components/schemas/GradedComponent' } },
  }),
  GradedComponent: object({
    component_id: { type: 'integer', description: 'The component’s place in the rubric, from 0.' },
    title: string,
    score: { type: 'number', description: 'default + marks + custom_points, clamped to [lower_clamp, upper_clamp].' },
    max_value: number,
    comment: { type: 'string', description: 'The grader’s custom_message.' },
    custom_points: number,
    marks: {
      type: 'array',
      items: object({ mark_id: integer, title: string, points: number }),
      description: 'Students see published marks only.',
    },
    grader_id: nullable({ type: 'string', description: 'Null for students.' }),
    graded_at: nullable({ type: 'string', format: 'date-time', description: 'Null for students.' }),
  }),
  TaGrade: object({
    gradeable_id: string,
    user_id: string,
    owner_id: { type: 'string', description: 'The user, or on team gradeables the team, the grade belongs to.' },
    revision: { type: 'integer', description: 'Bumped by every change; send it back as `revision` to refuse lost updates.' },
    ta_grading_complete: boolean,
    tagrading_score: nullable(number),
    tagrading_max: number,
    components: { type: 'array', items: { $ref: '#/components/schemas/GradedComponent' } },
  }),
  GradeAuditEntry: object({
    revision: integer,
    grader_id: string,
    at: dateTime,
    component_id: integer,
    before: nullable({
      type: 'object',
      description:
        'The component’s grade before (mark_ids, custom_points, custom_message, grader_id, graded_at); null for its first grade.',
    }),
    after: { type: 'object', description: 'The component’s grade after the change.' },
  }),
  Attempt: object({
    version: integer,
    submitted_at: dateTime,
    submitted_by: string,
    days_late: integer,
    active: boolean,
    grading_state: {
      type: 'string',
      enum: ['queued', 'grading', 'graded', 'failed', 'superseded'],
      description:
        '`superseded`: a newer version of the same student (or team) was submitted while this one was still queued, so it is not graded (unless an instructor regrades it).',
    },
    points: nullable(number),
    message: nullable(string),
    commit: {
      ...nullable({ type: 'string', pattern: '^[0-9a-f]{40}$' }),
      description:
        'The commit the version is bound to: the default branch head when it was submitted, which its grading and every regrade check out. Null for repositories without history, and for a version submitted before versions were bound to commits until its first grading records the commit it checked out.',
    },
  }),
  Summary: {
    type: 'object',
    description:
      'A Rainbow Grades summary: ids, names and sections, then one key per syllabus bucket (`Homework`, `Lab`, …) listing released gradeables.',
    required: ['user_id', 'last_update'],
    properties: {
      user_id: string,
      legal_first_name: string,
      preferred_first_name: string,
      legal_last_name: string,
      preferred_last_name: string,
      registration_section: nullable(string),
      rotating_section: nullable(string),
      default_allowed_late_days: { ...lateDayCount, description: "The course's late-day budget (`default_student_late_days`)." },
      late_days_remaining: { ...lateDayCount, description: 'The budget left when the summary was generated.' },
      last_update: dateTime,
    },
    additionalProperties: {
      type: 'array',
      items: object(
        {
          id: string,
          name: string,
          gradeable_type: string,
          grade_released_date: nullable(string),
          score: { ...number, description: '0 when the status is Bad.' },
          status: { type: 'string', enum: ['Good', 'Late', 'Bad', 'Unsubmitted'] },
          late_day_exceptions: { ...lateDayCount, description: 'Electronic File, with an extension: its days.' },
          reason_for_exception: { ...string, description: 'Electronic File, with an extension: its reason.' },
          days_after_deadline: integer,
          days_charged: integer,
          late_days_remaining: { ...lateDayCount, description: 'Electronic File: the budget left after this gradeable.' },
          autograding_score: number,
          tagrading_score: number,
          components: { type: 'array' },
        },
        {
          required: [
            'id',
            'name',
            'gradeable_type',
            'grade_released_date',
            'score',
            'status',
            'days_after_deadline',
            'days_charged',
            'autograding_score',
            'tagrading_score',
            'components',
          ],
        },
      ),
    },
  },
  LateDayGrant: object({
    since: { ...localDate, description: 'When the grant starts, `YYYY-MM-DD HH:MM:SS` in the course time zone.' },
    allowed_late_days: { ...lateDayCount, description: 'The student’s late days in all from then on.' },
  }),
  ValidationProblem: object({ path: string, message: string }),
  Webhook: object({
    id: { type: 'string', pattern: WEBHOOK_ID.source },
    url: { type: 'string', format: 'uri' },
    events: { type: 'array', items: { type: 'string', enum: [...webhookEvents] } },
    description: string,
    created_at: dateTime,
    created_by: string,
  }),
  WebhookDelivery: object({
    id: { type: 'string', pattern: DELIVERY_ID.source, description: 'The message id: the `webhook-id` header of every attempt.' },
    event: { type: 'string', enum: [...webhookEvents] },
    state: {
      type: 'string',
      enum: ['pending', 'delivered', 'failed'],
      description: '`failed`: every retry failed; replay it once the receiver works.',
    },
    created_at: dateTime,
    next_attempt_at: nullable(dateTime),
    attempts: {
      type: 'array',
      items: object({
        attempt: integer,
        at: dateTime,
        status: nullable({ type: 'integer', description: "The receiver's HTTP status; a 2xx is a success." }),
        duration_ms: integer,
        error: nullable({ type: 'string', description: 'Why there was no answer (refused, time-out, address).' }),
        response: nullable({ type: 'string', description: "The start of the receiver's answer (200 characters)." }),
      }),
    },
    payload: { $ref: '#/components/schemas/WebhookPayload' },
  }),
  WebhookPayload: {
    type: 'object',
    description:
      'The body of every webhook request (Standard Webhooks): the event type, when it happened, and its data, which names the course.',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { type: 'string', enum: [...webhookEvents] },
      timestamp: dateTime,
      data: { type: 'object', required: ['term', 'course'], properties: { term: string, course: string }, additionalProperties: true },
    },
  },
  Regrade: object(
    {
      regrade_id: { type: 'string', pattern: REGRADE_ID.source, description: 'Read its progress at `…/regrades/{regrade_id}`.' },
      gradeable_id: string,
      state: {
        type: 'string',
        enum: ['queued', 'running', 'done'],
        description: 'queued until a regraded version ends, running until all have, then done (at once when nothing was queued).',
      },
      total: { type: 'integer', minimum: 0, description: 'Versions selected.' },
      queued: { type: 'integer', minimum: 0, description: 'Versions given a new place at the end of the grading queue.' },
      graded: { type: 'integer', minimum: 0, description: 'Queued versions graded again.' },
      failed: { type: 'integer', minimum: 0, description: 'Queued versions whose grading failed.' },
      skipped: { type: 'integer', minimum: 0, description: 'Versions left alone: already queued or being graded.' },
      regrade_by: { type: 'string', description: 'The instructor who asked for it.' },
      created_at: dateTime,
      message: { type: 'string', description: 'The reference\'s words: "<n> submissions added to queue for regrading".' },
    },
    {
      description:
        "A regrade: versions queued for grading again. Each keeps its results until the new ones replace them; the active versions' follow into values, the gradebook and the summaries.",
    },
  ),
  SummariesJob: object(
    {
      job_id: {
        type: 'string',
        pattern: SUMMARIES_JOB_ID.source,
        description: 'Read its progress at `…/reports/summaries/jobs/{job_id}`.',
      },
      course: { type: 'string', description: '`<term>/<course>`.' },
      state: {
        type: 'string',
        enum: ['queued', 'running', 'done', 'failed'],
        description: 'queued on the summaries queue, running, then done (its generation is current) or failed (see message).',
      },
      progress: object({
        done: { type: 'integer', minimum: 0, description: 'Members whose summaries are written.' },
        total: { type: 'integer', minimum: 0, description: 'Members of the course.' },
      }),
      requested_by: { type: 'string', description: 'The instructor who asked for it.' },
      created_at: dateTime,
      started_at: nullable(dateTime),
      finished_at: nullable(dateTime),
      summaries: nullable({ type: 'integer', description: 'Summaries generated (done only).' }),
      generated_at: nullable({ ...dateTime, description: 'The generation time the summaries list shows (done only).' }),
      generation: nullable(string),
      message: { type: 'string', description: 'Where the job is, in words; when failed, why.' },
    },
    {
      description:
        'A summaries job: generating the summaries of a course of SUMMARIES_JOB_MIN_USERS members or more, on the summaries queue. While one runs, asking again answers it.',
    },
  ),
} as const satisfies Record<string, JsonSchema>;

const gradeableNotFound: FailCase = { status: 404, message: 'Gradeable does not exist' };
/** A paged list's fails (shared/paging.ts). */
const pageFails = [fail(badPageSize), fail(badCursor)];
const gradeableNotSpecified: FailCase = { status: 400, message: 'Did not specify gradeable' };

export const contract: Record<RouteName, RouteContract> = {
  'issue-token': {
    tag: 'Tokens',
    data: object({
      token: {
        type: 'string',
        description:
          "A JWT (HS256): send it as `Authorization: <token>` or `Authorization: Bearer <token>`. Sent the same way with a later `POST /api/token` for this user id, even once expired or replaced, it marks a known client, which others' failed logins do not lock out.",
      },
    }),
    fails: [fail(blankCredentials), fail(wrongCredentials), fail(tooManyFailedLogins)],
  },
  'invalidate-token': {
    tag: 'Tokens',
    data: { type: 'null' },
    fails: [fail(blankCredentials), fail(wrongCredentials), fail(tooManyFailedLogins)],
  },
  'token-info': {
    tag: 'Tokens',
    data: object({ user_id: string, issued_at: dateTime, expires_at: nullable(dateTime) }),
    fails: [],
  },
  me: {
    tag: 'Users',
    data: object({ user_id: string, user_given_name: string, user_family_name: string }),
    fails: [],
  },
  'list-courses': {
    tag: 'Users',
    data: object({
      unarchived_courses: { type: 'array', items: ref('Course') },
      archived_courses: { type: 'array', items: ref('Course') },
    }),
    fails: [fail(accessDenied)],
  },
  'create-course': {
    tag: 'Courses',
    data: ref('Course'),
    fails: [
      fail(courseFieldsMissing),
      fail(badSemester),
      fail(badCourseTitle),
      fail(invalidBaseCourse),
      fail(notForYourself),
      fail(noHeadInstructor),
      fail(noSuchSemester),
      fail(courseExistsAlready),
      fail(instructorNotInGroup),
      fail(tooManyGradeablesToCopy),
    ],
  },
  'course-users': {
    tag: 'Courses',
    data: {
      type: 'array',
      items: ref('CourseUser'),
      description: 'By registration section (numerically where both are numbers, NULL last), then user id.',
    },
    fails: pageFails,
    successHeaders: ['Link'],
  },
  'course-graders': {
    tag: 'Courses',
    data: {
      type: 'array',
      items: ref('CourseUser'),
      description: 'By registration section (numerically where both are numbers, NULL last), then user id.',
    },
    fails: pageFails,
    successHeaders: ['Link'],
  },
  'create-term': {
    tag: 'Courses',
    data: ref('Term'),
    fails: [
      fail(termFieldsMissing),
      fail(badTermId),
      fail(blankTermName),
      fail(badTermDates),
      fail(termEndsBeforeStart),
      fail(termExistsAlready),
    ],
  },
  'upload-gradeable': {
    tag: 'Gradeables',
    document: { schema: ref('Gradeable'), description: 'Gradeable JSON (application/json only).' },
    data: { type: 'string', description: 'The new gradeable’s id.' },
    fails: [
      {
        status: 400,
        message: 'JSON requires id, title, and type. See documentation for information',
        data: { type: 'array', items: ref('ValidationProblem') },
      },
      {
        status: 422,
        message: '{the first problem}',
        data: { type: 'array', items: ref('ValidationProblem'), description: 'Every problem found.' },
      },
      { status: 409, message: 'An error has occurred: Gradeable already exists' },
    ],
  },
  'download-gradeable': { tag: 'Gradeables', data: ref('Gradeable'), fails: [gradeableNotFound, gradeableNotSpecified] },
  'list-gradeables': {
    tag: 'Gradeables',
    data: { type: 'object', description: 'Keyed by gradeable id.', additionalProperties: ref('GradeableListing') },
    fails: [],
  },
  'submit-vcs': {
    tag: 'Submissions',
    data: {
      type: 'string',
      description: 'e.g. `Successfully uploaded version 2 for Homework 1` (plus ` for <user>` when submitting for someone).',
    },
    fails: [
      fail(notSameUser),
      fail(onlyVcs),
      fail(gitRepoIdMissing),
      fail(invalidGradeableId),
      fail(userNotInCourse),
      fail(notOnTeam),
      {
        status: 400,
        message: 'The due date has passed: this submission would be {days} late, and this gradeable accepts at most {allowed} late.',
      },
      {
        status: 400,
        message:
          'The due date has passed: this submission would be {days} late, and this gradeable accepts at most {allowed} late (with an extension of {extension}).',
      },
      fail(badIdempotencyKey),
      fail(idempotencyKeyReused),
      fail(tooManySubmissions),
      fail(tooManyJobs),
      fail(tooManyVersions),
      fail(repositoryUnreadable),
    ],
  },
  'gradeable-values': {
    tag: 'Submissions',
    data: ref('Values'),
    fails: [gradeableNotFound, fail(notSameUser), fail(noGradedGradeable)],
  },
  'gradeable-attempts': {
    tag: 'Submissions',
    data: { type: 'array', items: ref('Attempt') },
    fails: [gradeableNotFound, fail(notSameUser), fail(noGradedGradeable), ...pageFails],
    successHeaders: ['Link'],
  },
  'set-active-version': {
    tag: 'Submissions',
    data: object({
      active_version: { type: 'integer', minimum: 0, description: '0: no active version (cancelled).' },
      highest_version: integer,
      message: string,
    }),
    fails: [
      gradeableNotFound,
      fail(notSameUser),
      fail(userNotInCourse),
      fail(onlyElectronicVersions),
      fail(notOnTeam),
      fail(versionMissing),
      fail(nothingSubmitted),
      fail(noSuchVersion),
    ],
  },
  gradebook: {
    tag: 'Grading',
    data: object({
      gradeable_id: string,
      students: {
        type: 'array',
        description: 'By registration section (numerically where both are numbers), then user id.',
        items: object({
          user_id: string,
          registration_section: string,
          team_id: nullable(string),
          has_submission: boolean,
          highest_version: integer,
          active_version: { type: 'integer', description: '0: none.' },
          grading_state: nullable({ type: 'string', enum: ['queued', 'grading', 'graded', 'failed', 'superseded'] }),
          autograding_score: nullable(number),
          tagrading_score: nullable(number),
          ta_grading_complete: boolean,
          total_score: { type: 'number', description: 'Autograding plus TA points, never below 0; 0 when Bad (too late).' },
          days_late: integer,
          status: { type: 'string', enum: ['Good', 'Late', 'Bad', 'Unsubmitted'] },
          grader_id: nullable({ type: 'string', description: 'Who graded last.' }),
        }),
      },
      next_cursor: nullable({ type: 'string', description: 'Pass as `cursor` for the next page; null on the last.' }),
    }),
    fails: [gradeableNotFound, ...pageFails],
    successHeaders: ['Link'],
  },
  regrade: {
    tag: 'Submissions',
    data: ref('Regrade'),
    fails: [
      fail(invalidGradeableId),
      fail(regradeOnlyVcs),
      fail(regradeVersionNotWhole),
      fail(regradeVersionNeedsUser),
      fail(userNotInCourse),
      fail(notOnTeam),
      fail(nothingToRegrade),
      fail(noActiveVersionToRegrade),
      fail(noSuchVersion),
    ],
  },
  'regrade-status': { tag: 'Submissions', data: ref('Regrade'), fails: [fail(regradeNotFound)] },
  'save-ta-grade': {
    tag: 'Grading',
    data: ref('TaGrade'),
    fails: [
      gradeableNotFound,
      fail(notTaGraded),
      fail(noStudent),
      fail(notYourSection),
      fail(notOnTeam),
      fail(gradingNotStarted),
      fail(componentMissing),
      fail(noComponent),
      fail(noMark),
      fail(markTwice),
      fail(customPointsBeyondSpan),
      fail(gradeChanged),
      fail(gradeRace),
    ],
  },
  'ta-grade': {
    tag: 'Grading',
    data: {
      allOf: [
        ref('TaGrade'),
        object({ history: { type: 'array', items: ref('GradeAuditEntry'), description: 'Every change, oldest first.' } }),
      ],
    },
    fails: [gradeableNotFound, fail(notTaGraded), fail(noStudent), fail(notYourSection), fail(notOnTeam)],
  },
  'generate-summaries': {
    tag: 'Summaries',
    data: {
      anyOf: [
        object(
          { course: string, summaries: integer, generated_at: dateTime, generation: string },
          { description: 'A course below SUMMARIES_JOB_MIN_USERS members: generated in the request.' },
        ),
        ref('SummariesJob'),
      ],
    },
    fails: [],
  },
  'summaries-job': { tag: 'Summaries', data: ref('SummariesJob'), fails: [fail(summariesJobNotFound)] },
  'list-summaries': {
    tag: 'Summaries',
    data: object({
      generated_at: nullable(dateTime),
      summaries: { type: 'array', items: ref('Summary'), description: 'One page, by user id.' },
      next_cursor: nullable({
        type: 'string',
        description: 'Pass as `cursor` for the next page (also in the `Link` header); null on the last.',
      }),
    }),
    fails: [...pageFails, fail(summariesRegenerated)],
    successHeaders: ['Link'],
  },
  'user-summary': {
    tag: 'Summaries',
    data: ref('Summary'),
    fails: [fail(accessDenied), fail(noSummary)],
  },
  'set-course-late-days': {
    tag: 'Summaries',
    data: object({ default_student_late_days: lateDayCount }),
    fails: [fail(daysRequired)],
  },
  'grant-late-days': {
    tag: 'Summaries',
    data: object({
      user_id: string,
      grants: { type: 'array', items: ref('LateDayGrant'), description: "The student's grants, oldest first." },
    }),
    fails: [fail(noStudent), fail(daysRequired), fail(badGrantStart)],
  },
  'set-extension': {
    tag: 'Summaries',
    data: object({ user_id: string, gradeable_id: string, late_day_exceptions: lateDayCount, reason_for_exception: string }),
    fails: [gradeableNotFound, fail(noStudent), fail(onlyElectronicLateDays), fail(daysRequired)],
  },
  'student-late-days': {
    tag: 'Summaries',
    data: object({
      user_id: string,
      default_student_late_days: lateDayCount,
      grants: { type: 'array', items: ref('LateDayGrant'), description: 'Oldest first.' },
      late_days_remaining: { ...lateDayCount, description: 'The budget left now (grants that start later not counted).' },
      gradeables: {
        type: 'array',
        description: 'The Electronic File gradeables with a due date the student can see, by due date.',
        items: object({
          id: string,
          title: string,
          submission_due_date: localDate,
          allowed_late_days: { ...lateDayCount, description: 'The gradeable’s own allowance (`late_days`).' },
          late_day_exceptions: { ...lateDayCount, description: 'The student’s extension on it (0: none).' },
          reason_for_exception: string,
          days_late: nullable({ ...integer, description: 'Of the active version; null without one.' }),
          days_charged: nullable(integer),
          status: { type: 'string', enum: ['Good', 'Late', 'Bad', 'Unsubmitted'] },
          late_days_remaining: { ...lateDayCount, description: 'The budget left after this gradeable.' },
        }),
      },
    }),
    fails: [fail(accessDenied), fail(noStudent), fail(notYourSection)],
  },
  'create-webhook': {
    tag: 'Webhooks',
    data: {
      allOf: [
        ref('Webhook'),
        {
          type: 'object',
          required: ['secret'],
          properties: {
            secret: {
              type: 'string',
              pattern: '^whsec_',
              description:
                'The signing secret (Standard Webhooks `whsec_` format), shown only in this answer: keep it to verify the `webhook-signature` header.',
            },
          },
        },
      ],
    },
    fails: [
      fail(needsUrlAndEvents),
      fail(urlNotAbsolute),
      fail(urlWithCredentials),
      { status: 400, message: 'The host {host} could not be found.' },
      {
        status: 400,
        message: "The url's host has the address {address}, which is {a kind of address}; webhooks are not delivered to such addresses.",
      },
      fail(unknownEvent),
      fail(tooManyWebhooks),
    ],
  },
  'list-webhooks': { tag: 'Webhooks', data: { type: 'array', items: ref('Webhook') }, fails: [] },
  'delete-webhook': { tag: 'Webhooks', data: { type: 'null' }, fails: [fail(webhookNotFound)] },
  'list-webhook-deliveries': {
    tag: 'Webhooks',
    data: { type: 'array', maxItems: 100, items: ref('WebhookDelivery'), description: 'The newest 100 first.' },
    fails: [fail(webhookNotFound), fail(badDeliveryState)],
  },
  'replay-webhook-delivery': {
    tag: 'Webhooks',
    data: ref('WebhookDelivery'),
    fails: [fail(webhookNotFound), fail(deliveryNotFound), fail(stillAttempting)],
  },
  'enroll-member': {
    tag: 'Courses',
    data: {
      allOf: [
        ref('CourseUser'),
        {
          type: 'object',
          required: ['password'],
          properties: {
            password: nullable({
              type: 'string',
              description: 'The generated password of an account this call created, shown this once; null otherwise.',
            }),
          },
        },
      ],
    },
    fails: [
      fail(badUserId),
      fail(groupRequired),
      fail(badGroup),
      fail(badSection),
      fail(tooManyGradingSections),
      fail(gradingSectionsOfGraders),
      fail(accountFieldsMissing),
      fail(badAccountField),
      fail(lastInstructor),
      fail(memberChanged),
    ],
  },
  'drop-member': {
    tag: 'Courses',
    data: object({
      user_id: string,
      member: nullable({
        ...ref('CourseUser'),
        description: 'A dropped student as the users list shows them; null for staff, who left the list.',
      }),
    }),
    fails: [fail(badUserId), fail(userNotInCourse), fail(lastInstructor), fail(memberChanged)],
  },
  'import-class-list': {
    tag: 'Courses',
    data: object({
      dry_run: boolean,
      created: { type: 'integer', minimum: 0, description: 'Members new to the course.' },
      updated: {
        type: 'integer',
        minimum: 0,
        description: 'Members whose group or registration section changed (a dropped student listed again too).',
      },
      unchanged: { type: 'integer', minimum: 0 },
      dropped: { type: 'integer', minimum: 0, description: 'Students dropped because the list lacks them (drop_missing).' },
      rejected: {
        type: 'array',
        description: 'Each line not imported, by line number (0: a student drop_missing would drop), with why.',
        items: object({ line: integer, reason: string }),
      },
      new_accounts: {
        type: 'array',
        description: 'The accounts created, each with its generated password shown this once (null in a dry run).',
        items: object({ user_id: string, password: nullable(string) }),
      },
    }),
    fails: [fail(classListMissing), fail(classListUnreadable), fail(classListHeader), fail(classListTooLong)],
  },
  openapi: {
    tag: 'Meta',
    raw: true,
    data: { type: 'object', description: 'This OpenAPI 3.1 document, as is (no envelope).' },
    fails: [],
  },
  'api-docs': {
    tag: 'Meta',
    raw: true,
    rawMediaTypes: ['text/html'],
    data: { type: 'string', description: 'The reference page (Swagger UI, served from this API: it loads nothing from elsewhere).' },
    fails: [],
  },
  'api-docs-asset': {
    tag: 'Meta',
    raw: true,
    rawMediaTypes: ['text/javascript', 'text/css'],
    data: { type: 'string', description: 'The asset, gzip-compressed when the request accepts it.' },
    fails: [{ status: 404, message: 'Endpoint not found.' }],
  },
};
