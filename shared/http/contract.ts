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
import * as z from 'zod';
import { blankCredentials, tooManyFailedLogins, wrongCredentials } from '#shared/auth/failures.ts';
import {
  accountFieldsMissing,
  archiveNeedsFaculty,
  badAccountField,
  badCourseName,
  badCourseTitle,
  badGroup,
  badSection,
  badSemester,
  badTermDates,
  badTermId,
  badTimeZone,
  badUserId,
  blankTermName,
  classListHeader,
  classListMissing,
  classListTooLong,
  classListUnreadable,
  configEntryMissing,
  configNameMissing,
  courseExistsAlready,
  courseFieldsMissing,
  gradingSectionsOfGraders,
  groupRequired,
  instructorNotInGroup,
  invalidBaseCourse,
  lastInstructor,
  memberChanged,
  noHeadInstructor,
  noSuchSemester,
  notAConfigName,
  notANumber,
  notForYourself,
  notOnTeam,
  badTeamId,
  noTeamMembers,
  notAStudent,
  notTeamGradeable,
  teamChangedMeanwhile,
  teamHasSubmissions,
  teamMemberTwice,
  teamNotFound,
  teamSubmissionsMerged,
  teamSubmissionsTakenAway,
  teamTooBig,
  tooManyTeamChanges,
  numberTooLarge,
  readOnlySetting,
  termEndsBeforeStart,
  termExistsAlready,
  termFieldsMissing,
  tooManyGradeablesToCopy,
  tooManyGradingSections,
  unarchiveNeedsFaculty,
  userNotInCourse,
} from '#shared/courses/failures.ts';
import { badCursor, badPageSize } from '#shared/paging.ts';
import * as fileFailures from '#shared/files/failures.ts';
import { fieldFails } from './fields.ts';
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
import {
  deleteHasSubmissions,
  deleteHasTeams,
  gradeableBusy,
  gradeableChangedSince,
  idMismatch,
  invalidGradeableId,
  noSuchVersion,
  wouldStrand,
} from '#shared/gradeables/failures.ts';
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
  gradeableChangedWhileGrading,
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
import {
  blankField,
  blankPassword,
  fieldNotChangeable,
  invalidEmail,
  invalidLevel,
  invalidUserId,
  nameTooLong,
  noSuchUser,
  notAString,
  nothingToChange,
  onlyOwnNames,
  ownLevel,
  passwordFieldsMissing,
  passwordIsUserId,
  passwordTooCommon,
  passwordTooShort,
  userExists,
  userFieldsMissing,
  wrongCurrentPassword,
} from '#shared/users/failures.ts';
import { LEVEL_NAMES, MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from '#shared/users/limits.ts';
import {
  anyObject,
  boolean,
  components,
  count,
  dateTime,
  gradingStates,
  integer,
  lateDayCount,
  lateStatuses,
  localDate,
  number,
  object,
  string,
} from './answers.ts';
import { bodyTooLarge, refusalStatus } from './failures.ts';
import type { RouteName } from './routes.ts';

/** The statuses `Prefer: http-status` brings out. */
export type HttpStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 422 | 429 | 500;

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

const { Course, CourseUser, Term, Gradeable, RedactedGradeable, GradeableListing, Values, TaGrade, GradeAuditEntry, Attempt, Summary } =
  components;
const { LateDayGrant, ValidationProblem, Webhook, WebhookDelivery, Regrade, SummariesJob, Team, User, AuditEntry, CourseConfig } =
  components;

const gradeableNotFound: FailCase = { status: 404, message: 'Gradeable does not exist' };
/** A paged list's fails (shared/paging.ts). */
const pageFails = [fail(badPageSize), fail(badCursor)];
/** What a file submission (or its declared uploads) is refused for: names, zips, limits. */
const fileFails: readonly FailCase[] = Object.values(fileFailures)
  .filter((declared) => declared !== fileFailures.noSuchFileVersion)
  .map((declared) => fail(declared));
/** A submission after its due date (submission.ts's lateRefusal). */
const lateFails: readonly FailCase[] = [
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
const gradeableNotSpecified: FailCase = { status: 400, message: 'Did not specify gradeable' };
const byRegistrationSection = 'By registration section (numerically where both are numbers, NULL last), then user id.';
const passwordFails = [fail(blankPassword), fail(passwordTooShort), fail(passwordIsUserId), fail(passwordTooCommon)];
/** A gradeable JSON document's problems (upload and replace). */
const gradeableProblems: readonly FailCase[] = [
  {
    status: 400,
    message: 'JSON requires id, title, and type. See documentation for information',
    data: z.array(ValidationProblem),
  },
  { status: 422, message: '{the first problem}', data: z.array(ValidationProblem).describe('Every problem found.') },
];
const generatedPassword = string.nullable().describe('The generated password, shown this once; null when one was given.');
const auditTrail = z.array(AuditEntry).describe('Newest first.');

export const contract: Record<RouteName, RouteContract> = {
  'issue-token': {
    tag: 'Tokens',
    data: object({
      token: string.describe(
        "A JWT (HS256): send it as `Authorization: <token>` or `Authorization: Bearer <token>`. Sent the same way with a later `POST /api/token` for this user id, even once expired or replaced, it marks a known client, which others' failed logins do not lock out.",
      ),
    }),
    fails: [fail(blankCredentials), fail(wrongCredentials), fail(tooManyFailedLogins)],
  },
  'invalidate-token': {
    tag: 'Tokens',
    data: z.null(),
    fails: [fail(blankCredentials), fail(wrongCredentials), fail(tooManyFailedLogins)],
  },
  'token-info': {
    tag: 'Tokens',
    data: object({ user_id: string, issued_at: dateTime, expires_at: dateTime.nullable() }),
    fails: [],
  },
  me: {
    tag: 'Users',
    data: object({ user_id: string, user_given_name: string, user_family_name: string }),
    fails: [],
  },
  'list-courses': {
    tag: 'Users',
    data: object({ unarchived_courses: z.array(Course), archived_courses: z.array(Course) }),
    fails: [fail(accessDenied)],
  },
  'create-course': {
    tag: 'Courses',
    data: Course,
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
    data: z.array(CourseUser).describe(byRegistrationSection),
    fails: pageFails,
    successHeaders: ['Link'],
  },
  'course-graders': {
    tag: 'Courses',
    data: z.array(CourseUser).describe(byRegistrationSection),
    fails: pageFails,
    successHeaders: ['Link'],
  },
  'create-term': {
    tag: 'Courses',
    data: Term,
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
    document: { schema: Gradeable, description: 'Gradeable JSON (application/json only).' },
    data: z
      .union([string.describe('The new gradeable’s id.'), Gradeable])
      .describe('The new gradeable’s id; with dry_run=true, the gradeable as it would be stored (nothing is written).'),
    fails: [...gradeableProblems, { status: 409, message: 'An error has occurred: Gradeable already exists' }],
  },
  'replace-gradeable': {
    tag: 'Gradeables',
    document: { schema: Gradeable, description: 'Gradeable JSON as download gives it (application/json only).' },
    // The gradeable as stored (with dry_run=true: as it would be), in download form.
    data: Gradeable,
    successHeaders: ['ETag'],
    fails: [
      gradeableNotFound,
      gradeableNotSpecified,
      ...gradeableProblems,
      fail(idMismatch),
      fail(gradeableChangedSince),
      fail(wouldStrand),
      fail(gradeableBusy),
    ],
  },
  'delete-gradeable': {
    tag: 'Gradeables',
    // The deleted gradeable, in download form.
    data: Gradeable,
    fails: [
      gradeableNotFound,
      gradeableNotSpecified,
      fail(deleteHasSubmissions),
      fail(deleteHasTeams),
      fail(gradeableChangedSince),
      fail(gradeableBusy),
    ],
  },
  'download-gradeable': {
    tag: 'Gradeables',
    data: z.union([Gradeable, RedactedGradeable]),
    fails: [gradeableNotFound, gradeableNotSpecified],
  },
  'list-gradeables': {
    tag: 'Gradeables',
    data: z.record(string, GradeableListing).describe('Keyed by gradeable id.'),
    fails: [],
  },
  'submit-vcs': {
    tag: 'Submissions',
    data: string.describe('e.g. `Successfully uploaded version 2 for Homework 1` (plus ` for <user>` when submitting for someone).'),
    fails: [
      fail(notSameUser),
      fail(onlyVcs),
      fail(gitRepoIdMissing),
      fail(invalidGradeableId),
      fail(userNotInCourse),
      fail(notOnTeam),
      fail(teamChangedMeanwhile),
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
      fail(gradeableBusy),
    ],
  },
  'submit-files': {
    tag: 'Submissions',
    data: string.describe('e.g. `Successfully uploaded version 2 for Homework 1` (plus ` for <user>` when submitting for someone).'),
    fails: [
      fail(notSameUser),
      fail(invalidGradeableId),
      ...fileFails,
      fail(userNotInCourse),
      fail(notOnTeam),
      fail(teamChangedMeanwhile),
      ...lateFails,
      fail(badIdempotencyKey),
      fail(idempotencyKeyReused),
      fail(tooManySubmissions),
      fail(tooManyJobs),
      fail(tooManyVersions),
      fail(gradeableBusy),
      // Files in the body: a larger body than other routes take.
      { status: 413, message: bodyTooLarge(4 * 1024 * 1024).message },
    ],
  },
  'file-uploads': {
    tag: 'Submissions',
    data: object({
      uploads: z.array(
        object({
          name: string,
          upload_id: string.describe('Submit it with POST …/files as one of `upload_ids`.'),
          url: string.describe('Where to POST the form.'),
          fields: z.record(z.string(), z.string()).describe('The form fields to send before the file (the field `file`).'),
        }),
      ),
    }),
    fails: [fail(invalidGradeableId), ...fileFails],
  },
  'submission-files': {
    tag: 'Submissions',
    data: object({
      version: integer,
      files: z.array(object({ name: string, size: integer, url: string.describe('A presigned download link, valid for 5 minutes.') })),
    }),
    fails: [
      gradeableNotFound,
      fail(notSameUser),
      fail(noGradedGradeable),
      fail(fileFailures.noSuchFileVersion),
      // Its query's typed field (a body's are listed from the definition).
      { status: 400, message: fieldFails.mustBe('version', 'a version number') },
    ],
  },
  'gradeable-values': {
    tag: 'Submissions',
    data: Values,
    fails: [gradeableNotFound, fail(notSameUser), fail(noGradedGradeable)],
  },
  'gradeable-attempts': {
    tag: 'Submissions',
    data: z.array(Attempt),
    fails: [gradeableNotFound, fail(notSameUser), fail(noGradedGradeable), ...pageFails],
    successHeaders: ['Link'],
  },
  'set-active-version': {
    tag: 'Submissions',
    data: object({
      active_version: z.int().min(0).describe('0: no active version (cancelled).'),
      highest_version: integer,
      message: string,
    }),
    fails: [
      gradeableNotFound,
      fail(notSameUser),
      fail(userNotInCourse),
      fail(onlyElectronicVersions),
      fail(notOnTeam),
      fail(teamChangedMeanwhile),
      fail(versionMissing),
      fail(nothingSubmitted),
      fail(noSuchVersion),
    ],
  },
  gradebook: {
    tag: 'Grading',
    data: object({
      gradeable_id: string,
      students: z
        .array(
          object({
            user_id: string,
            registration_section: string,
            team_id: string.nullable(),
            has_submission: boolean,
            highest_version: integer,
            active_version: integer.describe('0: none.'),
            grading_state: z.enum(gradingStates).nullable(),
            autograding_score: number.nullable(),
            tagrading_score: number.nullable(),
            ta_grading_complete: boolean,
            total_score: number.describe('Autograding plus TA points, never below 0; 0 when Bad (too late).'),
            days_late: integer,
            status: z.enum(lateStatuses),
            grader_id: string.describe('Who graded last.').nullable(),
          }),
        )
        .describe('By registration section (numerically where both are numbers), then user id.'),
      next_cursor: string.describe('Pass as `cursor` for the next page; null on the last.').nullable(),
    }),
    fails: [gradeableNotFound, ...pageFails],
    successHeaders: ['Link'],
  },
  regrade: {
    tag: 'Submissions',
    data: Regrade,
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
  'regrade-status': { tag: 'Submissions', data: Regrade, fails: [fail(regradeNotFound)] },
  'save-ta-grade': {
    tag: 'Grading',
    data: TaGrade,
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
      fail(gradeableBusy),
      fail(gradeableChangedWhileGrading),
    ],
  },
  'ta-grade': {
    tag: 'Grading',
    data: TaGrade.extend({ history: z.array(GradeAuditEntry).describe('Every change, oldest first.') }),
    fails: [gradeableNotFound, fail(notTaGraded), fail(noStudent), fail(notYourSection), fail(notOnTeam)],
  },
  'generate-summaries': {
    tag: 'Summaries',
    data: z.union([
      object({ course: string, summaries: integer, generated_at: dateTime, generation: string }).describe(
        'A course below SUMMARIES_JOB_MIN_USERS members: generated in the request.',
      ),
      SummariesJob,
    ]),
    fails: [],
  },
  'summaries-job': { tag: 'Summaries', data: SummariesJob, fails: [fail(summariesJobNotFound)] },
  'list-summaries': {
    tag: 'Summaries',
    data: object({
      generated_at: dateTime.nullable(),
      summaries: z.array(Summary).describe('One page, by user id.'),
      next_cursor: string.describe('Pass as `cursor` for the next page (also in the `Link` header); null on the last.').nullable(),
    }),
    fails: [...pageFails, fail(summariesRegenerated)],
    successHeaders: ['Link'],
  },
  'user-summary': {
    tag: 'Summaries',
    data: Summary,
    fails: [fail(accessDenied), fail(noSummary)],
  },
  'set-course-late-days': {
    tag: 'Summaries',
    data: object({ default_student_late_days: lateDayCount }),
    fails: [fail(daysRequired)],
  },
  'grant-late-days': {
    tag: 'Summaries',
    data: object({ user_id: string, grants: z.array(LateDayGrant).describe("The student's grants, oldest first.") }),
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
      grants: z.array(LateDayGrant).describe('Oldest first.'),
      late_days_remaining: lateDayCount.describe('The budget left now (grants that start later not counted).'),
      gradeables: z
        .array(
          object({
            id: string,
            title: string,
            submission_due_date: localDate,
            allowed_late_days: lateDayCount.describe('The gradeable’s own allowance (`late_days`).'),
            late_day_exceptions: lateDayCount.describe('The student’s extension on it (0: none).'),
            reason_for_exception: string,
            days_late: integer.describe('Of the active version; null without one.').nullable(),
            days_charged: integer.nullable(),
            status: z.enum(lateStatuses),
            late_days_remaining: lateDayCount.describe('The budget left after this gradeable.'),
          }),
        )
        .describe('The Electronic File gradeables with a due date the student can see, by due date.'),
    }),
    fails: [fail(accessDenied), fail(noStudent), fail(notYourSection)],
  },
  'create-webhook': {
    tag: 'Webhooks',
    data: Webhook.extend({
      secret: z
        .string()
        .regex(/^whsec_/)
        .describe(
          'The signing secret (Standard Webhooks `whsec_` format), shown only in this answer: keep it to verify the `webhook-signature` header.',
        ),
    }),
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
  'list-webhooks': { tag: 'Webhooks', data: z.array(Webhook), fails: [] },
  'delete-webhook': { tag: 'Webhooks', data: z.null(), fails: [fail(webhookNotFound)] },
  'list-webhook-deliveries': {
    tag: 'Webhooks',
    data: z.array(WebhookDelivery).max(100).describe('The newest 100 first.'),
    fails: [fail(webhookNotFound), fail(badDeliveryState)],
  },
  'replay-webhook-delivery': {
    tag: 'Webhooks',
    data: WebhookDelivery,
    fails: [fail(webhookNotFound), fail(deliveryNotFound), fail(stillAttempting)],
  },
  'list-teams': {
    tag: 'Courses',
    data: z.array(Team).describe('By team id.'),
    fails: [gradeableNotFound, fail(notTeamGradeable), ...pageFails],
    successHeaders: ['Link'],
  },
  'set-team': {
    tag: 'Courses',
    data: Team,
    fails: [
      gradeableNotFound,
      fail(notTeamGradeable),
      fail(badTeamId),
      fail(noTeamMembers),
      fail(teamMemberTwice),
      fail(teamTooBig),
      fail(notAStudent),
      fail(teamSubmissionsTakenAway),
      fail(teamSubmissionsMerged),
      fail(tooManyTeamChanges),
      fail(teamChangedMeanwhile),
    ],
  },
  'delete-team': {
    tag: 'Courses',
    data: z.null(),
    fails: [gradeableNotFound, fail(notTeamGradeable), fail(teamNotFound), fail(teamHasSubmissions), fail(teamChangedMeanwhile)],
  },
  'course-config': { tag: 'Courses', data: CourseConfig, fails: [] },
  'set-course-config': {
    tag: 'Courses',
    data: CourseConfig,
    fails: [
      fail(configNameMissing),
      fail(configEntryMissing),
      fail(notAConfigName),
      fail(readOnlySetting),
      fail(notANumber),
      fail(numberTooLarge),
      fail(badCourseName),
      fail(badTimeZone),
    ],
  },
  'archive-course': { tag: 'Courses', data: object({ message: string }), fails: [fail(archiveNeedsFaculty)] },
  'unarchive-course': { tag: 'Courses', data: object({ message: string }), fails: [fail(unarchiveNeedsFaculty)] },
  'enroll-member': {
    tag: 'Courses',
    data: CourseUser.extend({
      password: string.nullable().describe('The generated password of an account this call created, shown this once; null otherwise.'),
    }),
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
      member: CourseUser.nullable().describe('A dropped student as the users list shows them; null for staff, who left the list.'),
    }),
    fails: [fail(badUserId), fail(userNotInCourse), fail(lastInstructor), fail(memberChanged)],
  },
  'import-class-list': {
    tag: 'Courses',
    data: object({
      dry_run: boolean,
      created: count('Members new to the course.'),
      updated: count('Members whose group or registration section changed (a dropped student listed again too).'),
      unchanged: count('Members the list leaves as they are.'),
      dropped: count('Students dropped because the list lacks them (drop_missing).'),
      rejected: z
        .array(object({ line: integer, reason: string }))
        .describe('Each line not imported, by line number (0: a student drop_missing would drop), with why.'),
      new_accounts: z
        .array(object({ user_id: string, password: string.nullable() }))
        .describe('The accounts created, each with its generated password shown this once (null in a dry run).'),
    }),
    fails: [fail(classListMissing), fail(classListUnreadable), fail(classListHeader), fail(classListTooLong)],
  },
  openapi: {
    tag: 'Meta',
    raw: true,
    data: anyObject.describe('This OpenAPI 3.1 document, as is (no envelope).'),
    fails: [],
  },
  'api-docs': {
    tag: 'Meta',
    raw: true,
    rawMediaTypes: ['text/html'],
    data: string.describe('The reference page (Swagger UI, served from this API: it loads nothing from elsewhere).'),
    fails: [],
  },
  'api-docs-asset': {
    tag: 'Meta',
    raw: true,
    rawMediaTypes: ['text/javascript', 'text/css'],
    data: string.describe('The asset, gzip-compressed when the request accepts it.'),
    fails: [{ status: 404, message: 'Endpoint not found.' }],
  },
  'list-users': {
    tag: 'Users',
    data: z.array(User).describe('By user id.'),
    fails: pageFails,
    successHeaders: ['Link'],
  },
  'create-user': {
    tag: 'Users',
    data: User.extend({ password: generatedPassword }),
    fails: [
      fail(userFieldsMissing),
      fail(invalidUserId),
      fail(blankField),
      fail(nameTooLong),
      fail(invalidEmail),
      fail(invalidLevel),
      ...passwordFails,
      fail(userExists),
    ],
  },
  'get-user': { tag: 'Users', data: User, fails: [fail(accessDenied), fail(noSuchUser)] },
  'update-user': {
    tag: 'Users',
    document: {
      schema: object({
        first_name: string.max(MAX_NAME_LENGTH).optional(),
        last_name: string.max(MAX_NAME_LENGTH).optional(),
        email: string.max(MAX_EMAIL_LENGTH).describe('Superusers only.').optional(),
        level: z.enum(LEVEL_NAMES).describe('Superusers only, not their own.').optional(),
      }).meta({ minProperties: 1 }),
      description: 'The fields to change (at least one); any other field is refused.',
    },
    data: User,
    fails: [
      fail(accessDenied),
      fail(noSuchUser),
      fail(fieldNotChangeable),
      fail(onlyOwnNames),
      fail(ownLevel),
      fail(notAString),
      fail(nothingToChange),
      fail(blankField),
      fail(nameTooLong),
      fail(invalidEmail),
      fail(invalidLevel),
    ],
  },
  'set-user-password': {
    tag: 'Users',
    data: object({ user_id: string, password: generatedPassword }),
    fails: [...passwordFails, fail(noSuchUser)],
  },
  'change-password': {
    tag: 'Users',
    data: object({ token: string.describe('The new token (as `POST /api/token` answers); the old one no longer works.') }),
    fails: [fail(passwordFieldsMissing), ...passwordFails, fail(wrongCurrentPassword), fail(tooManyFailedLogins)],
  },
  'list-terms': {
    tag: 'Courses',
    data: z.array(Term).describe('Newest first: by start date, then term id, both descending.'),
    fails: [],
  },
  'user-audit': { tag: 'Users', data: auditTrail, fails: pageFails, successHeaders: ['Link'] },
  'course-audit': { tag: 'Courses', data: auditTrail, fails: pageFails, successHeaders: ['Link'] },
};
