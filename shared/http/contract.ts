/**
 * The API contract beside the route table: for every route, the `data` of its success envelope (a
 * zod schema, built from the shared pieces of answers.ts) and the `fail` messages it can answer
 * with their HTTP status (sent with `Prefer: http-status`); what it accepts is declared in
 * inputs.ts. `shared/http/openapi.ts` renders both, together with routes.ts, as an OpenAPI 3.1
 * document, and the answer check (answer-check.ts) holds every answer of the tests, and of
 * `npm start` with CHECK_ANSWERS, to them. The failures every route shares (token, course, body
 * parsing, a field not of its kind) are added from the route's access and inputs, so only each
 * route's own are listed here. Only the openapi function and local or test code import it.
 */
import * as fileFailures from '#shared/files/failures.ts';
import * as z from 'zod';
import { badCursor, badPageSize } from '#shared/paging.ts';
import { notOnTeam, teamChangedMeanwhile, userNotInCourse } from '#shared/courses/failures.ts';
import {
  badIdempotencyKey,
  idempotencyKeyReused,
  teamTooLargeToSubmit,
  tooManyJobs,
  tooManySubmissions,
  tooManyVersions,
} from '#shared/submissions/failures.ts';
import type { Failure } from '#shared/errors.ts';
import {
  blankCredentials,
  passwordLoginOff,
  passwordLoginSuperusersOnly,
  tooManyFailedLogins,
  wrongCredentials,
} from '#shared/auth/failures.ts';
import { blankPassword, passwordIsUserId, passwordTooCommon, passwordTooShort } from '#shared/users/failures.ts';
import { components, string } from './answers.ts';
import { refusalStatus } from './failures.ts';

/** The statuses `Prefer: http-status` brings out. */
export type HttpStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 422 | 429 | 500 | 503;

export interface FailCase {
  readonly status: HttpStatus;
  /** The message; `{name}` marks a part filled in per request. */
  readonly message: string;
  /** Present when the envelope carries `data` with the message. */
  readonly data?: z.ZodType;
  /** Response headers sent with it (`Retry-After`). */
  readonly headers?: readonly string[];
}

/**
 * A route's answers. What it reads (parameters, headers, body fields) is declared in inputs.ts;
 * a route taking one JSON document has its schema here.
 */
export interface RouteContract {
  /** The JSON document a route takes as its body (JSON only). */
  readonly document?: { readonly schema: z.ZodType; readonly description: string };
  /** The success envelope's `data`. */
  readonly data: z.ZodType;
  /** This route's own fail messages (the shared ones are added from its access). */
  readonly fails: readonly FailCase[];
  /** Answered as is, not in an envelope (the OpenAPI document, the reference page); failures still are envelopes. */
  readonly raw?: true;
  /** Response headers its success answer may carry (`Link` to a paged list's next page). */
  readonly successHeaders?: readonly string[];
  /** The media types of a raw answer (default `application/json`). */
  readonly rawMediaTypes?: readonly string[];
  /**
   * A platform-facing route (LTI, OpenID Connect): it answers as those specifications say, never
   * with an envelope. Its successes are these redirects (with `Location`) or, where `page` says
   * so, an HTML page (200); its fails are HTML pages with the fail's status whose title is the
   * message (shared/http/platform-answers.ts renders them).
   */
  readonly platform?: PlatformAnswers;
  readonly tag: Tag;
}

export interface PlatformAnswers {
  /** The redirects it answers with, and where each leads. */
  readonly redirects: readonly { readonly status: 302 | 303; readonly description: string }[];
  /** What its HTML success page (200) says, where it answers one. */
  readonly page?: string;
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
  Inquiries:
    'Grade inquiries: a student asks about a released grade within its inquiry window; the student and graders post; graders resolve.',
  Summaries: 'Grade summaries (Rainbow Grades).',
  Webhooks:
    'Grading notifications: HTTPS callbacks per course, signed by the Standard Webhooks scheme, retried with back-off; the events are described under Webhooks of this document.',
  LTI: "LTI 1.3: the platforms (LMSs) registered, the tool's keys and configuration (docs/lti.md).",
  Meta: 'This document and the reference page.',
} as const;
export type Tag = keyof typeof tags;
const { ValidationProblem, AuditEntry } = components;

export const gradeableNotFound: FailCase = { status: 404, message: 'Gradeable does not exist' };
/** A paged list's fails (shared/paging.ts). */
export const pageFails = [fail(badPageSize), fail(badCursor)];
/** What a file submission (or its declared uploads) is refused for: names, zips, limits. */
export const fileFails: readonly FailCase[] = Object.entries(fileFailures)
  // By name: a module's exports are listed in declaration order by some loaders, by name by others.
  .sort(([one], [other]) => one.localeCompare(other))
  .filter(([, declared]) => declared !== fileFailures.noSuchFileVersion)
  .map(([, declared]) => fail(declared));
/** A submission after its due date (submission.ts's lateRefusal). */
export const lateFails: readonly FailCase[] = [
  {
    status: 400,
    message: 'The due date has passed: this submission would be {days} late, and this gradeable accepts at most {allowed} late.',
  },
  {
    status: 400,
    message:
      'The due date has passed: this submission would be {days} late, and this gradeable accepts at most {allowed} late (with an extension of {extension}).',
  },
];
/** What any submission may be refused for once its gradeable and its sender are known: who it is for, its lateness, its limits, its key. */
export const versionFails: readonly FailCase[] = [
  fail(userNotInCourse),
  fail(notOnTeam),
  fail(teamChangedMeanwhile),
  fail(teamTooLargeToSubmit),
  ...lateFails,
  fail(badIdempotencyKey),
  fail(idempotencyKeyReused),
  fail(tooManySubmissions),
  fail(tooManyJobs),
  fail(tooManyVersions),
];
export const gradeableNotSpecified: FailCase = { status: 400, message: 'Did not specify gradeable' };
export const byRegistrationSection = 'By registration section (numerically where both are numbers, NULL last), then user id.';
export const passwordFails = [fail(blankPassword), fail(passwordTooShort), fail(passwordIsUserId), fail(passwordTooCommon)];
/** A user id and password checked as a login checks them. */
export const credentialFails = [fail(blankCredentials), fail(wrongCredentials), fail(tooManyFailedLogins)];
/** Where the deployment's PASSWORD_LOGIN refuses a password. */
export const passwordLoginFails = [fail(passwordLoginOff), fail(passwordLoginSuperusersOnly)];
/** A gradeable JSON document's problems (upload and replace). */
export const gradeableProblems: readonly FailCase[] = [
  {
    status: 400,
    message: 'JSON requires id, title, and type. See documentation for information',
    data: z.array(ValidationProblem),
  },
  { status: 422, message: '{the first problem}', data: z.array(ValidationProblem).describe('Every problem found.') },
];
export const generatedPassword = string.nullable().describe('The generated password, shown this once; null when one was given.');
export const auditTrail = z.array(AuditEntry).describe('Newest first.');
