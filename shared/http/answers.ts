/**
 * The pieces of answers that several routes share, as zod schemas: the OpenAPI document lists each
 * of `components` under `components.schemas` (by its key) and refers to it from every answer that
 * holds it; each route's contract (functions/<name>/contract.ts) builds its answer from them. Objects are strict: an answer that
 * carries a key its schema does not declare does not match it (the tests check every answer).
 *
 * Only the OpenAPI function and local or test code import this: the HTTP functions never check
 * their own answers, so their bundles leave the schemas out.
 */
import * as z from 'zod';
import { gradeableDocumentSchema, gradeableTypes } from '#shared/gradeables/schema.ts';
import {
  CODE,
  DELIVERY_ID,
  INQUIRY_ID,
  LTI_REGISTRATION_ID,
  LTI_SCORE_DELIVERY_ID,
  REGRADE_ID,
  SUMMARIES_JOB_ID,
  TEAM_ID,
  WEBHOOK_ID,
} from '#shared/ids.ts';
import { LEVEL_NAMES } from '#shared/users/limits.ts';
import { webhookEvents } from '#shared/webhooks/webhook.ts';

/** An object whose keys are exactly these (each required unless `.optional()`). */
export const object = <Shape extends z.ZodRawShape>(shape: Shape) => z.strictObject(shape);
export const string = z.string();
export const integer = z.int();
export const number = z.number();
export const boolean = z.boolean();
/** An instant, ISO 8601 (`2026-01-31T12:00:00.000Z`). */
export const dateTime = z.iso.datetime({ offset: true });
export const date = z.iso.date();
export const lateDayCount = z.int().min(0);
export const localDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  .describe('`YYYY-MM-DD HH:MM:SS` in the course time zone.');
/** A JSON object of any keys. */
export const anyObject = z.record(z.string(), z.unknown());
const commitHash = z.string().regex(/^[0-9a-f]{40}$/);
export const gradingStates = ['queued', 'grading', 'graded', 'failed', 'superseded'] as const;
export const lateStatuses = ['Good', 'Late', 'Bad', 'Unsubmitted'] as const;

const Course = object({
  semester: string,
  title: string,
  display_name: string,
  display_semester: string,
  user_group: z.literal([1, 2, 3, 4]).describe('1 instructor, 2 full access grader, 3 limited access grader, 4 student.'),
  registration_section: string.nullable(),
});

const CourseUser = object({
  first_name: string,
  last_name: string,
  user_id: string,
  email: string,
  reg_section: string.describe('Registration section (`NULL` for none); on the graders list the sections graded, `All` for instructors.'),
  rot_section: string,
  group: z.enum(['Instructor', 'Full Access Grader (Grad TA)', 'Limited Access Grader (Mentor)', 'Student']),
  given_name: string,
  family_name: string,
});

const Term = object({
  term_id: z.string().regex(CODE),
  term_name: string,
  start_date: date,
  end_date: date,
});

const GradeableListing = object({
  id: string,
  title: string,
  instructions_url: string,
  syllabus_bucket: string,
  gradeable_type: z.enum(gradeableTypes),
  section: z.int().min(0).max(5),
  section_name: z.enum(['FUTURE', 'BETA', 'OPEN', 'CLOSED', 'GRADING', 'GRADED']),
  due_date: object({ date: string, timezone_type: integer, timezone: string }).nullable(),
  vcs_repository: string.nullable(),
  vcs_subdirectory: string.nullable(),
});

const GradedComponent = object({
  component_id: integer.describe('The component’s place in the rubric, from 0.'),
  title: string,
  score: number.describe('default + marks + custom_points, clamped to [lower_clamp, upper_clamp].'),
  max_value: number,
  comment: string.describe('The grader’s custom_message.'),
  custom_points: number,
  marks: z.array(object({ mark_id: integer, title: string, points: number })).describe('Students see published marks only.'),
  grader_id: string.nullable().describe('Null for students.'),
  graded_at: dateTime.nullable().describe('Null for students.'),
});

const LineRun = object({ start: integer.min(1), count: integer.min(0) });

const Autocheck = object({
  description: string,
  messages: z.array(object({ message: string, type: z.enum(['success', 'failure', 'warning', 'information']) })),
  diff_viewer: object({
    differences: z
      .array(object({ expected: LineRun, actual: LineRun }))
      .describe(
        'Each run of lines of `expected` (first line, 1-based, and how many; 0: none, the actual lines come before `start`) and the lines of `actual` in its place. At most 100.',
      ),
    truncated: boolean.describe('Some differences are not listed: too many, or the outputs were cut to fit the results.'),
  })
    .nullable()
    .describe('Where a check comparing outputs line by line failed: the lines in which the actual output differs from the expected one.'),
  expected: string.nullable(),
  actual: string.nullable(),
});

/** The active version's lateness and the student's late days, as their late-day table says them. */
const standingFields = () => ({
  days_late: lateDayCount
    .nullable()
    .describe("The version's days late (0 without a due date); null without an active version or on a gradeable without late days."),
  late_days_charged: lateDayCount
    .nullable()
    .describe(
      'The late days charged for it (0 when it is on time, within an extension, or Bad); null as days_late is, or when the user is not a student of the course.',
    ),
  late_days_remaining: z
    .int()
    .nullable()
    .describe(
      "The student's late days left now (the late-day table's late_days_remaining); null on a gradeable without late days, or for a user who is not a student.",
    ),
});

const queueEta = z
  .int()
  .min(0)
  .nullable()
  .describe(
    'While the version is queued: estimated seconds until its grading starts (its place × the recent jobs’ mean time ÷ the jobs graded at once lately); null when it is not queued or no job ended in the last 30 minutes.',
  );

const Values = object({
  is_queued: boolean,
  queue_position: z.int().min(-1).describe('1-based place in the queue, 0 while grading, -1 otherwise.'),
  is_grading: boolean,
  has_submission: boolean,
  autograding_complete: boolean,
  has_active_version: boolean,
  highest_version: integer,
  total_points: number
    .nullable()
    .describe('The test cases shown: a student sees hidden test cases, and their points, only once grades are released; staff always.'),
  total_percent: number.nullable(),
  commit: commitHash
    .nullable()
    .describe("The active version's commit (see Attempt's `commit`); null without an active version or a recorded commit."),
  test_cases: z.array(
    object({
      name: string,
      details: string,
      is_extra_credit: boolean,
      points_available: number,
      has_extra_results: boolean,
      points_received: number,
      testcase_message: string,
      autochecks: z.array(Autocheck),
    }),
  ),
  ta_grading: boolean.describe('Whether TA grading counts (Checkpoints and Numeric: always; Electronic File: ta_grading).'),
  ta_grades_released: boolean.describe('Whether grade_released_date has passed; students see TA scores and comments only then.'),
  ta_grading_complete: boolean.describe('Every rubric component has a (visible) grade.'),
  tagrading_score: number
    .describe('The sum of the graded components’ scores (never below 0); null when none is graded or visible.')
    .nullable(),
  tagrading_max: number.describe('The sum of the components’ max_value.'),
  total_score: number.describe('Autograding (total_points) plus TA points, never below 0.').nullable(),
  ta_components: z.array(GradedComponent),
  ...standingFields(),
  queue_eta_seconds: queueEta,
});

/** What a submission answers with `Prefer: return=representation` instead of the reference's message. */
const SubmissionRepresentation = object({
  version: integer.min(1).describe('The version the submission created.'),
  message: string.describe('The message the reference answers, e.g. `Successfully uploaded version 2 for Homework 1`.'),
  ...standingFields(),
  queue_position: z
    .int()
    .min(-1)
    .describe("The version's 1-based place in the queue, 0 while graded, -1 otherwise (graded already, or superseded)."),
  queue_eta_seconds: queueEta,
});

const TaGrade = object({
  gradeable_id: string,
  user_id: string,
  owner_id: string.describe('The user, or on team gradeables the team, the grade belongs to.'),
  revision: integer.describe('Bumped by every change; send it back as `revision` to refuse lost updates.'),
  ta_grading_complete: boolean,
  tagrading_score: number.nullable(),
  tagrading_max: number,
  components: z.array(GradedComponent),
});

const GradeAuditEntry = object({
  revision: integer,
  grader_id: string,
  at: dateTime,
  component_id: integer,
  before: anyObject
    .describe('The component’s grade before (mark_ids, custom_points, custom_message, grader_id, graded_at); null for its first grade.')
    .nullable(),
  after: anyObject.describe('The component’s grade after the change.'),
});

const Attempt = object({
  version: integer,
  submitted_at: dateTime,
  submitted_by: string,
  days_late: integer,
  active: boolean,
  grading_state: z
    .enum(gradingStates)
    .describe(
      '`superseded`: a newer version of the same student (or team) was submitted while this one was still queued, so it is not graded (unless an instructor regrades it).',
    ),
  points: number.nullable().describe('Counting hidden test cases exactly as total_points in values does for the same reader.'),
  message: string.nullable(),
  commit: commitHash
    .nullable()
    .describe(
      'The commit the version is bound to: the default branch head when it was submitted, which its grading and every regrade check out. Null for repositories without history, and for a version submitted before versions were bound to commits until its first grading records the commit it checked out.',
    ),
});

/** One released gradeable in a summary's syllabus bucket. */
const SummaryEntry = object({
  id: string,
  name: string,
  gradeable_type: string,
  grade_released_date: string.nullable(),
  score: number.describe('0 when the status is Bad.'),
  status: z.enum(lateStatuses),
  late_day_exceptions: lateDayCount.describe('Electronic File, with an extension: its days.').optional(),
  reason_for_exception: string.describe('Electronic File, with an extension: its reason.').optional(),
  days_after_deadline: integer,
  days_charged: integer,
  late_days_remaining: lateDayCount.describe('Electronic File: the budget left after this gradeable.').optional(),
  autograding_score: number,
  tagrading_score: number,
  components: z.array(z.unknown()),
});

const Summary = z
  .object({
    user_id: string,
    legal_first_name: string.optional(),
    preferred_first_name: string.optional(),
    legal_last_name: string.optional(),
    preferred_last_name: string.optional(),
    registration_section: string.nullable().optional(),
    rotating_section: string.nullable().optional(),
    default_allowed_late_days: lateDayCount.describe("The course's late-day budget (`default_student_late_days`).").optional(),
    late_days_remaining: lateDayCount.describe('The budget left when the summary was generated.').optional(),
    last_update: dateTime,
  })
  .catchall(z.array(SummaryEntry))
  .describe(
    'A Rainbow Grades summary: ids, names and sections, then one key per syllabus bucket (`Homework`, `Lab`, …) listing released gradeables.',
  );

const LateDayGrant = object({
  since: localDate.describe('When the grant starts, `YYYY-MM-DD HH:MM:SS` in the course time zone.'),
  allowed_late_days: lateDayCount.describe('The student’s late days in all from then on.'),
});

const ValidationProblem = object({ path: string, message: string });

const Webhook = object({
  id: z.string().regex(WEBHOOK_ID),
  url: z.url(),
  events: z.array(z.enum(webhookEvents)),
  description: string,
  created_at: dateTime,
  created_by: string,
});

const WebhookPayload = object({
  type: z.enum(webhookEvents),
  timestamp: dateTime,
  data: z.looseObject({ term: string, course: string }),
}).describe(
  'The body of every webhook request (Standard Webhooks): the event type, when it happened, and its data, which names the course.',
);

const WebhookDelivery = object({
  id: z.string().regex(DELIVERY_ID).describe('The message id: the `webhook-id` header of every attempt.'),
  event: z.enum(webhookEvents),
  state: z.enum(['pending', 'delivered', 'failed']).describe('`failed`: every retry failed; replay it once the receiver works.'),
  created_at: dateTime,
  next_attempt_at: dateTime.nullable(),
  attempts: z.array(
    object({
      attempt: integer,
      at: dateTime,
      status: integer.describe("The receiver's HTTP status; a 2xx is a success.").nullable(),
      duration_ms: integer,
      error: string.describe('Why there was no answer (refused, time-out, address).').nullable(),
      response: string.describe("The start of the receiver's answer (200 characters).").nullable(),
    }),
  ),
  payload: WebhookPayload,
});

/** A count (0 or more), with what it counts. */
export const count = (description: string) => z.int().min(0).describe(description);

const Regrade = object({
  regrade_id: z.string().regex(REGRADE_ID).describe('Read its progress at `…/regrades/{regrade_id}`.'),
  gradeable_id: string,
  state: z
    .enum(['queued', 'running', 'done'])
    .describe('queued until a regraded version ends, running until all have, then done (at once when nothing was queued).'),
  total: count('Versions selected.'),
  queued: count('Versions given a new place at the end of the grading queue.'),
  graded: count('Queued versions graded again.'),
  failed: count('Queued versions whose grading failed.'),
  skipped: count('Versions left alone: already queued or being graded.'),
  regrade_by: string.describe('The instructor who asked for it.'),
  created_at: dateTime,
  message: string.describe('The reference\'s words: "<n> submissions added to queue for regrading".'),
}).describe(
  "A regrade: versions queued for grading again. Each keeps its results until the new ones replace them; the active versions' follow into values, the gradebook and the summaries.",
);

const SummariesJob = object({
  job_id: z.string().regex(SUMMARIES_JOB_ID).describe('Read its progress at `…/reports/summaries/jobs/{job_id}`.'),
  course: string.describe('`<term>/<course>`.'),
  state: z
    .enum(['queued', 'running', 'done', 'failed'])
    .describe('queued on the summaries queue, running, then done (its generation is current) or failed (see message).'),
  progress: object({
    done: count('Members whose summaries are written.'),
    total: count('Members of the course.'),
  }),
  requested_by: string.describe('The instructor who asked for it.'),
  created_at: dateTime,
  started_at: dateTime.nullable(),
  finished_at: dateTime.nullable(),
  summaries: integer.describe('Summaries generated (done only).').nullable(),
  generated_at: dateTime.describe('The generation time the summaries list shows (done only).').nullable(),
  generation: string.nullable(),
  message: string.describe('Where the job is, in words; when failed, why.'),
}).describe(
  'A summaries job: generating the summaries of a course of SUMMARIES_JOB_MIN_USERS members or more, on the summaries queue. While one runs, asking again answers it.',
);

const GradebookExport = object({
  export_id: string,
  status: z
    .enum(['queued', 'running', 'done', 'failed'])
    .describe('queued on the summaries queue, running, then done (see url) or failed (see message).'),
  format: z.enum(['csv']),
  created_at: dateTime,
  started_at: dateTime.nullable(),
  finished_at: dateTime.nullable(),
  gradeable_ids: z.array(string).describe('The gradeables asked for; null: every gradeable released to staff when it ran.').nullable(),
  sections: z.array(string).describe("The registration sections it covers (a limited access grader's); null: every section.").nullable(),
  students: integer.describe('Students exported (done only).').nullable(),
  bytes: integer.describe("The CSV's size (done only).").nullable(),
  url: string
    .describe('A presigned GET of the CSV (done only), working until url_expires_at; reading the export again gives a new one.')
    .nullable(),
  url_expires_at: dateTime.nullable(),
  message: string.describe('Where the export is, in words; when failed, why.'),
}).describe(
  "A gradebook export: the course's gradebook as CSV (RFC 4180; a text cell beginning with =, +, -, @, a tab or a carriage return starts with ' instead), written on the summaries queue. Only its requester reads it.",
);

const SimilaritySide = object({
  owner: string.describe('The student (or team) whose active version it is.'),
  version: integer,
  semester: string,
  course: string,
  gradeable_id: string,
});

const SimilarityRun = object({
  run_id: string,
  gradeable_id: string,
  status: z
    .enum(['queued', 'running', 'done', 'failed'])
    .describe('queued on the summaries queue, running (see fingerprinted), then done (see the pairs) or failed (see message).'),
  created_at: dateTime,
  started_at: dateTime.nullable(),
  finished_at: dateTime.nullable(),
  language: string.describe("The language asked for; null: each file's extension's.").nullable(),
  min_match_tokens: integer.describe('The shortest shared run a kept pair has, in tokens; null: any.').nullable(),
  starter_files: integer.describe('Starter code files whose matches count for no pair.'),
  compare_with: z
    .array(object({ semester: string, course: string, gradeable_id: string }))
    .describe("Gradeables of this or earlier terms whose submissions are compared with this gradeable's (never with each other)."),
  requested_by: string.describe('The instructor who asked for the run.'),
  submissions: integer
    .describe("This gradeable's active versions to compare (known once running); once done, those compared (the skipped left out).")
    .nullable(),
  fingerprinted: integer.describe('Of those, how many are fingerprinted so far.').nullable(),
  pairs_kept: integer.describe('Pairs kept, the most similar (done only).').nullable(),
  fingerprints_reused: integer
    .describe('Versions whose fingerprints an earlier run had stored, read instead of parsing their files again (done only).')
    .nullable(),
  skipped: integer
    .describe("Versions that could not be compared, this gradeable's and the earlier ones' (done only): see skipped_versions.")
    .nullable(),
  skipped_versions: z
    .array(
      SimilaritySide.extend({
        reason: string.describe('Why it was not compared: its commit not recorded yet, its repository unreadable, …'),
      }),
    )
    .describe('The skipped versions with why (the first 100); the run compared the others.'),
  message: string.describe('Where the run is, in words; when failed, why.'),
}).describe("A similarity run of a gradeable's submissions, compared on the summaries queue. Only the course's instructors read it.");

const SimilarityPair = object({
  pair_id: string.describe('The pair in its run (its rank).'),
  rank: integer.describe('From 1, most similar first.'),
  left: SimilaritySide,
  right: SimilaritySide,
  similarity: z.number().min(0).max(1).describe("The share of both sides' fingerprints the other side has too (0–1)."),
  longest_fragment: integer.describe('The longest run of code both share, in tokens.'),
  total_overlap: integer.describe('Tokens of the smaller side that lie in shared code.'),
  revision: integer.describe('Bumped by every decision on the pair.'),
  decision: object({
    decision: z.enum(['dismissed', 'confirmed']),
    note: string,
    decided_by: string,
    decided_at: dateTime,
  })
    .describe("A reviewer's decision; nothing is penalised automatically.")
    .nullable(),
});

const SimilarityRunListed = SimilarityRun.omit({ skipped_versions: true }).describe(
  "A similarity run of a gradeable as the list of its runs shows it: GET …/similarity/{run_id} answers it with its pairs and skipped versions. Only the course's instructors read it.",
);

const SimilarityReport = SimilarityRun.extend({
  pairs: z.array(SimilarityPair).describe('This page of the pairs, most similar first (done only).'),
  next_cursor: string.describe("The next page's cursor (also in the `Link` header); null: the last page.").nullable(),
}).describe('A similarity run and a page of its pairs, most similar first. A similarity is evidence to look at, not a verdict.');

const FragmentSide = object({
  path: string.describe('The file, as submitted.'),
  first_line: integer.describe('From 1.'),
  last_line: integer.describe('Included.'),
  tokens: integer,
  lines: z.array(string).describe('The lines first_line to last_line (the first 400 at most); null once the files are gone.').nullable(),
});

const SimilarityPairDetail = SimilarityPair.extend({
  fragments: z
    .array(object({ left: FragmentSide, right: FragmentSide }))
    .describe("The runs of code both sides share, in the left side's order."),
}).describe('One pair of a similarity run with the passages both sides share, side by side.');

const Team = object({
  team_id: z.string().regex(TEAM_ID),
  members: z.array(string).describe("The members' user ids, in the order they were set."),
}).describe("A team of a team gradeable: any member submits for the team, and every member sees the team's versions.");

/** What graders get of a gradeable with hidden test cases (instructors get the gradeable JSON whole). */
const RedactedGradeable = z
  .looseObject({
    id: string,
    title: string,
    type: z.enum(gradeableTypes),
    autograding: z.looseObject({
      test_cases: z.array(z.looseObject({ name: string, is_hidden: boolean, command: string.optional(), expect: anyObject.optional() })),
    }),
    hidden_test_cases_redacted: z.literal(true),
  })
  .describe(
    'The gradeable JSON as graders get it when it has hidden test cases: each hidden test case without its `command` and `expect`, and `hidden_test_cases_redacted: true`. An upload refuses it.',
  );

const CourseConfig = object({
  config: object({
    course_name: string.describe('The display name.'),
    default_student_late_days: lateDayCount,
    timezone: string.describe('IANA time zone of the course’s dates.'),
    course_status: z.literal([1, 2]).describe('1 active, 2 archived.'),
    archived: boolean,
    access_group: string.describe('The access group whose staff may read across its courses.'),
    archived_accepts_submissions: boolean.describe(
      'Whether the course takes submissions and uploads while archived (false: it refuses them).',
    ),
  }),
});

const User = object({
  user_id: string,
  first_name: string,
  last_name: string,
  email: string,
  level: z.enum(LEVEL_NAMES).describe('System access level.'),
  disabled: boolean.describe('A disabled account gets no token until a superuser enables it again.'),
});

const AuditEntry = object({
  at: dateTime,
  actor: string.describe('Who made the change: a user id, or `(command line)` for the operator’s command line (no user id can be that).'),
  action: string.describe('What was done, as `<thing>.<verb>`: `user.created`, `user.changed`, `user.password-set`, `member.enrolled`, …'),
  target: string.describe('What it was done to: a user id, a gradeable id, a team id, a setting’s name.'),
  before: anyObject.describe('The fields that changed, as they were; null when created.').nullable(),
  after: anyObject.describe('The fields that changed, as they are now; null when removed.').nullable(),
});

const InquiryPost = object({
  author: string.describe('Who posted: a user id.'),
  role: z.enum(['student', 'staff']).describe('Whether the author posted as the student (or a member of their team) or as staff.'),
  content: string,
  at: dateTime,
});

const Inquiry = object({
  inquiry_id: string.regex(INQUIRY_ID),
  gradeable_id: string,
  owner_id: string.describe('The student, or on a team gradeable their team.'),
  members: z.array(string).describe('The students whose grade it is: the student, or the team’s members when it was opened.'),
  section: string.describe('The registration section of the student who opened it, when they opened it.'),
  component_id: integer
    .nullable()
    .describe('The rubric component asked about (its place in the rubric, from 0); null when about the whole grade.'),
  status: z.enum(['open', 'resolved']),
  revision: integer.describe(
    'One more with every change (a post, a change of status): send it with a change of status to make it conditional.',
  ),
  opened_by: string,
  opened_at: dateTime,
  updated_at: dateTime,
  posts: z.array(InquiryPost).describe('Oldest first; the first is the question that opened it.'),
});

const LtiToolUrls = object({
  login_url: z.url().describe('The OIDC login initiation URL (Canvas "OpenID Connect Initiation Url", Moodle "Initiate login URL").'),
  launch_url: z
    .url()
    .describe(
      'The redirect and target link URL (Canvas "Redirect URIs" and "Target Link URI", Moodle "Tool URL" and "Redirection URI(s)").',
    ),
  jwks_url: z.url().describe('The tool\'s public key set (Canvas "Public JWK URL", Moodle "Public keyset").'),
  deep_linking_url: z.url().describe('Where deep-linking requests go (Moodle "Content Selection URL"): the launch URL.'),
  config_url: z.url().describe('The tool\'s configuration for manual set-up (Canvas "Enter URL").'),
}).describe("The tool's own URLs, to enter in the LMS.");

const LtiRegistration = object({
  registration_id: z.string().regex(LTI_REGISTRATION_ID),
  issuer: string,
  client_id: string,
  auth_login_url: z.url(),
  auth_token_url: z.url(),
  jwks_url: z.url(),
  deployment_ids: z.array(string).describe('The deployments launches may come from; empty: any.'),
  auth_token_audience: string.nullable(),
  user_id_claim: string,
  user_id_suffix: string.nullable(),
  create_users: boolean,
  label: string.nullable(),
  created_at: dateTime,
  created_by: string,
  tool: LtiToolUrls,
});

/** The shared answer pieces, listed by name under `components.schemas` of the OpenAPI document. */
/** An LMS course (an LTI context) linked to a course here. */
export const LtiLink = object({
  registration_id: string.describe('The registration (the platform) the LMS course is of.'),
  context_id: string.describe("The LMS course's context id."),
  deployment_id: string,
  semester: string,
  course: string,
  section: string.nullable().describe('The registration section students the link enrols are given.'),
  memberships_url: string.nullable().describe("The platform's roster service (NRPS) for the LMS course, as its launch named it."),
  grades: object({
    lineitems: string.nullable(),
    lineitem: string.nullable(),
    scope: z.array(string),
  })
    .nullable()
    .describe("The platform's grade service (AGS) endpoints, as the launch named them."),
  linked_by: string,
  linked_at: dateTime,
});

/** A grade on its way to a linked LMS course: one per (LMS course, gradeable, student). */
export const LtiScoreDelivery = object({
  delivery_id: z.string().regex(LTI_SCORE_DELIVERY_ID).describe('Replay it at `…/lti/scores/{delivery_id}/replay`.'),
  gradeable_id: string,
  user_id: string.describe('The student.'),
  owner_id: string.describe('Whose submission the grade is of: the student, or their team.'),
  registration_id: string.describe('The registration (the platform) of the LMS course.'),
  context_id: string.describe("The LMS course's context id."),
  state: z
    .enum(['pending', 'sent', 'failed', 'skipped'])
    .describe(
      '`pending`: a try is queued; `sent`: the LMS took the score; `failed`: the LMS refused it, or its retries are spent; `skipped`: not sent, for `reason`.',
    ),
  reason: string.nullable().describe("Why it failed (the platform's words) or was skipped."),
  graded_at: dateTime.describe("The time of the grade it carries: the score's timestamp."),
  attempts: count('Tries made, over every round.'),
  last_attempt: object({
    at: dateTime,
    status: integer.nullable().describe("The platform's HTTP status (null: no answer)."),
    message: string.nullable().describe("What went wrong: the platform's words, cut to 300 characters."),
  }).nullable(),
  next_attempt_at: dateTime.nullable(),
  sent: object({
    score_given: z
      .number()
      .nullable()
      .describe('Null when the grading failed (`grading_progress` `Failed`): no score, which the LMS clears.'),
    score_maximum: z.number().nullable(),
    activity_progress: string,
    grading_progress: string,
    timestamp: dateTime,
  })
    .nullable()
    .describe('The score the LMS last took.'),
  updated_at: dateTime,
});

export const components = {
  Course,
  CourseUser,
  Term,
  Gradeable: gradeableDocumentSchema(),
  RedactedGradeable,
  GradeableListing,
  Values,
  SubmissionRepresentation,
  GradedComponent,
  TaGrade,
  GradeAuditEntry,
  Attempt,
  Summary,
  LateDayGrant,
  ValidationProblem,
  Webhook,
  WebhookDelivery,
  WebhookPayload,
  Regrade,
  SummariesJob,
  GradebookExport,
  SimilarityRun,
  SimilarityRunListed,
  SimilarityReport,
  SimilarityPair,
  SimilarityPairDetail,
  Team,
  CourseConfig,
  User,
  AuditEntry,
  Inquiry,
  LtiRegistration,
  LtiToolUrls,
  LtiLink,
  LtiScoreDelivery,
} as const satisfies Record<string, z.ZodType>;
