/**
 * What every route reads from a request, declared once as zod schemas beside the route table:
 * its path parameters (by name, shared by all routes), query parameters, the headers it reads and
 * its body fields. The HTTP layer (endpoint.ts) parses requests with them and hands handlers the
 * typed result; their types come from them (z.infer); the OpenAPI document renders them.
 *
 * What is checked here is the kind of each value (a string of at most so many characters, a loose
 * boolean, a list), with the `The field …` messages. Whether a field is there, and what an id or a
 * date must look like, the domain checks, in the reference's order and words; the schemas show
 * those rules (the patterns come from shared/ids.ts), and mark as required what the domain
 * requires.
 */
import * as z from 'zod/mini';
import { invalidInput } from '#shared/errors.ts';
import { DEFAULT_PAGE } from '#shared/gradebook/page.ts';
import { MAX_CURSOR_LENGTH, MAX_PAGE_BYTES, MAX_PAGE_SIZE, PAGE_SIZE } from '#shared/paging.ts';
import { SUMMARIES_PAGE } from '#shared/summaries/page.ts';
import { CODE, DELIVERY_ID, GRADEABLE_ID, IDEMPOTENCY_KEY, REGRADE_ID, SUMMARIES_JOB_ID, USER_ID, WEBHOOK_ID } from '#shared/ids.ts';
import { MAX_LATE_DAYS, MAX_REASON_LENGTH } from '#shared/submissions/late-days.ts';
import { MAX_MESSAGE_LENGTH } from '#shared/tagrading/grade.ts';
import { deliveryStates } from '#shared/webhooks/delivery.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH, webhookEvents } from '#shared/webhooks/webhook.ts';
import { csvDocument, decimal, documented, fieldMessage, flag, list, scalar, text, wholeNumber, wholeNumbers } from './fields.ts';
import type { RouteName, routes } from './routes.ts';

type Shape = Readonly<Record<string, z.ZodMiniType>>;

export interface RouteInput {
  readonly query?: Shape;
  /** Request headers beyond Authorization and Prefer, by their canonical names. */
  readonly headers?: Shape;
  /** Form fields, read alike from JSON, url-encoded and multipart bodies. */
  readonly body?: Shape;
  /** The body is one JSON document, handed over as parsed (its schema is the contract's). */
  readonly document?: true;
  /** The body field a `text/csv` body is read as (a route taking a CSV document). */
  readonly csv?: string;
}

/** An object whose every property is built by its function when first read, then kept. */
function builtOnFirstRead<Builders extends Record<string, () => unknown>>(
  builders: Builders,
): { readonly [Key in keyof Builders]: ReturnType<Builders[Key]> } {
  const built: Record<string, unknown> = {};
  for (const [key, build] of Object.entries(builders)) {
    Object.defineProperty(built, key, {
      enumerable: true,
      get() {
        const value = build();
        Object.defineProperty(built, key, { enumerable: true, value });
        return value;
      },
      configurable: true,
    });
  }
  return built as { readonly [Key in keyof Builders]: ReturnType<Builders[Key]> };
}

/** A route that reads no query, headers or body fields. */
const none = () => ({});

/** Every `{name}` of a route path. Not refused here: each route answers a malformed one as not found. */
export const pathParameters = builtOnFirstRead({
  semester: () => documented(z.string().check(z.regex(CODE)), { description: 'The term code (e.g. `f26`).' }),
  course: () => documented(z.string().check(z.regex(CODE)), { description: 'The course code (e.g. `sample`).' }),
  gradeable_id: () => documented(z.string().check(z.regex(GRADEABLE_ID)), { description: 'The gradeable id.' }),
  user_id: () => documented(z.string().check(z.regex(USER_ID)), { description: 'A user id.' }),
  webhook_id: () => documented(z.string().check(z.regex(WEBHOOK_ID)), { description: 'A webhook id (`wh_…`).' }),
  delivery_id: () =>
    documented(z.string().check(z.regex(DELIVERY_ID)), { description: 'A delivery id (`msg_…`), also its `webhook-id` header.' }),
  regrade_id: () => documented(z.string().check(z.regex(REGRADE_ID)), { description: 'A regrade id (`rg_…`), as the regrade answered.' }),
  job_id: () =>
    documented(z.string().check(z.regex(SUMMARIES_JOB_ID)), {
      description: 'A summaries job id (`sj_…`), as generating the summaries answered.',
    }),
  asset: () => documented(z.string(), { description: 'A versioned asset name, as the reference page links it.' }),
}) satisfies Shape;

const userIdQuery = (description: string) => documented(z.string(), { description });
const staffUserIdQuery = () => userIdQuery("Another user's id (staff of the course; see the route's description).");
const code = (description: string) => text(256, { description, pattern: CODE });
const pageMiB = MAX_PAGE_BYTES / 1024 / 1024;
/** `page_size` and `cursor` of a paged list (shared/paging.ts); `whole`: answered whole unless a page is asked for. */
const paging = (items: string, defaultSize: number | 'whole') => ({
  page_size: z.optional(
    documented(z.string(), {
      description:
        defaultSize === 'whole'
          ? `${items} per page, 1 to ${MAX_PAGE_SIZE}. Left out (and without cursor): the whole list while its JSON fits in ${pageMiB} MiB, otherwise the first ${pageMiB} MiB with a \`Link\` to the rest.`
          : `${items} per page, 1 to ${MAX_PAGE_SIZE} (${defaultSize} when left out); a page ends sooner once its JSON reaches ${pageMiB} MiB.`,
      pattern: PAGE_SIZE.source,
    }),
  ),
  cursor: z.optional(
    documented(z.string(), {
      description: 'Where the next page starts: from the previous answer\'s `Link: <…>; rel="next"` header.',
      maxLength: MAX_CURSOR_LENGTH,
    }),
  ),
});

/**
 * Each route's inputs, built when first read: a function reads only its own route's (on its first
 * request), and the OpenAPI document every route's.
 */
export const inputs = builtOnFirstRead({
  'issue-token': () => ({
    body: {
      user_id: text(256, { description: 'The user id.' }),
      password: text(1024, { description: 'The password.', format: 'password' }),
    },
  }),
  'invalidate-token': () => ({
    body: {
      user_id: z.optional(text(256, { description: 'The user id (not needed when a valid token is sent).' })),
      password: z.optional(text(1024, { description: 'The password (not needed when a valid token is sent).', format: 'password' })),
    },
  }),
  'token-info': none,
  me: none,
  'list-courses': () => ({ query: { user_id: z.optional(userIdQuery("Superusers: another user's courses.")) } }),
  'create-course': () => ({
    body: {
      course_semester: code('The new course’s term.'),
      course_title: code('The new course’s code.'),
      head_instructor: text(256, { description: 'Its instructor (faculty: themselves).' }),
      base_course: z.optional(text(256, { description: 'Or both as `term|course` (the web form).' })),
      base_course_semester: z.optional(code('The base course’s term …')),
      base_course_title: z.optional(code('… and code.')),
      copy_gradeables: z.optional(flag({ description: 'Copy the base course’s gradeables (at most 95).' })),
    },
  }),
  'course-users': () => ({ query: paging('Users', 'whole') }),
  'course-graders': () => ({ query: paging('Graders', 'whole') }),
  'create-term': () => ({
    body: {
      term_id: text(64, { description: 'The term code.', pattern: CODE }),
      term_name: text(100, { description: 'Its display name.' }),
      start_date: text(10, { description: 'First day, `YYYY-MM-DD`.', format: 'date' }),
      end_date: text(10, { description: 'Last day, `YYYY-MM-DD`.', format: 'date' }),
    },
  }),
  'upload-gradeable': () => ({ document: true }),
  'download-gradeable': none,
  'list-gradeables': none,
  'submit-vcs': () => ({
    headers: {
      'Idempotency-Key': z.optional(
        documented(z.string(), {
          description: 'Makes retries safe: a repeat within 24 hours gets the first answer and creates nothing.',
          pattern: IDEMPOTENCY_KEY.source,
        }),
      ),
    },
    body: {
      user_id: z.optional(text(256, { description: 'Instructors and full access graders: submit for this student.' })),
      vcs_checkout: flag({ description: 'Must be true.' }, { lenient: true }),
      git_repo_id: scalar({ description: 'Any non-empty value (the repository comes from the gradeable’s VCS settings).' }),
    },
  }),
  'gradeable-values': () => ({ query: { user_id: z.optional(staffUserIdQuery()) } }),
  'gradeable-attempts': () => ({ query: { user_id: z.optional(staffUserIdQuery()), ...paging('Versions', 'whole') } }),
  'save-ta-grade': () => ({
    body: {
      component_id: wholeNumber({
        description: 'The rubric component, by its place in the rubric (from 0).',
        mustBe: 'a whole number (a component’s place in the rubric, from 0)',
      }),
      mark_ids: z.optional(
        wholeNumbers({
          description: 'The marks applied, by their places in the component (from 0); none when left out.',
          mustBe: 'a list of whole numbers (marks’ places in the component, from 0)',
          maxItems: 50,
        }),
      ),
      custom_points: z.optional(
        decimal({
          description:
            'Points added on top of the default and the marks (may be negative; at most the span of the clamps either way); 0 when left out.',
          mustBe: 'a number',
        }),
      ),
      custom_message: z.optional(text(MAX_MESSAGE_LENGTH, { description: 'The comment the student sees once grades are released.' })),
      revision: z.optional(scalar({ description: 'The revision the grader saw: refused with 409 when the grade changed since.' })),
    },
  }),
  'ta-grade': none,
  'set-active-version': () => ({
    body: {
      version: wholeNumber({
        description: 'The version to make active, from 1 to the highest; 0 cancels the submission (no active version).',
        mustBe: 'a whole number from 0 (0 cancels the submission)',
        max: Infinity,
        digits: /^\d{1,6}$/,
      }),
      user_id: z.optional(text(256, { description: 'Instructors and full access graders: the student whose version to choose.' })),
    },
  }),
  gradebook: () => ({
    query: {
      ...paging('Students', DEFAULT_PAGE),
      limit: z.optional(documented(z.string(), { description: 'The older name of `page_size`.', pattern: PAGE_SIZE.source })),
    },
  }),
  regrade: () => ({
    body: {
      user_id: z.optional(
        text(256, {
          description:
            "A student whose active version to regrade (on team gradeables, a member of the team); none: every student's active version.",
        }),
      ),
      version_to_regrade: z.optional(
        wholeNumber({
          description: 'With user_id: regrade this version (from 1) instead of the active one.',
          mustBe: 'a whole number from 1',
          max: Infinity,
          digits: /^\d{1,6}$/,
        }),
      ),
    },
  }),
  'regrade-status': none,
  'generate-summaries': none,
  'summaries-job': none,
  'list-summaries': () => ({ query: paging('Summaries', SUMMARIES_PAGE) }),
  'user-summary': none,
  'set-course-late-days': () => ({
    body: {
      default_student_late_days: wholeNumber({
        description: 'The late days every student of the course starts with (0 until set).',
        mustBe: `a whole number from 0 to ${MAX_LATE_DAYS}`,
        max: MAX_LATE_DAYS,
      }),
    },
  }),
  'grant-late-days': () => ({
    body: {
      allowed_late_days: wholeNumber({
        description: "The student's late days in all from `since` on, those already charged included.",
        mustBe: `a whole number from 0 to ${MAX_LATE_DAYS}`,
        max: MAX_LATE_DAYS,
      }),
      since: z.optional(
        text(64, {
          description:
            "When the grant starts: a date `YYYY-MM-DD` (its midnight in the course's time zone), `YYYY-MM-DD HH:MM:SS` in that zone, or ISO 8601 with an offset; now when left out. A grant from the same instant replaces the earlier one.",
        }),
      ),
    },
  }),
  'set-extension': () => ({
    body: {
      late_days: wholeNumber({
        description: 'Days late on this gradeable that are neither charged nor bad; 0 removes the extension.',
        mustBe: `a whole number from 0 to ${MAX_LATE_DAYS}`,
        max: MAX_LATE_DAYS,
      }),
      reason_for_exception: z.optional(text(MAX_REASON_LENGTH, { description: 'Why (shown in the summaries).' })),
    },
  }),
  'student-late-days': none,
  'create-webhook': () => ({
    body: {
      url: text(MAX_URL_LENGTH, {
        description:
          'Where to POST the events: https, on a public address (private, loopback and link-local addresses, and plain http, only for the hosts the operator allows).',
        format: 'uri',
      }),
      events: list({
        description: `The events to receive: ${webhookEvents.join(', ')}.`,
        items: 'event names',
        values: webhookEvents,
        maxItems: 20,
      }),
      description: z.optional(text(MAX_DESCRIPTION_LENGTH, { description: 'What the webhook is for.' })),
    },
  }),
  'list-webhooks': none,
  'delete-webhook': none,
  'list-webhook-deliveries': () => ({
    query: {
      state: z.optional(
        documented(z.string(), {
          description: 'Only deliveries in this state (`failed`: those kept for replay).',
          enum: [...deliveryStates],
        }),
      ),
    },
  }),
  'replay-webhook-delivery': none,
  'enroll-member': () => ({
    body: {
      group: z.optional(
        text(64, {
          description:
            'Instructor, Full Access Grader (Grad TA), Limited Access Grader (Mentor) or Student (as the users list names them); needed for a new member.',
        }),
      ),
      registration_section: z.optional(
        text(64, { description: 'The registration section (1–32 letters, digits, _ or -); an empty string clears it.' }),
      ),
      rotating_section: z.optional(text(64, { description: 'The rotating section; an empty string clears it.' })),
      grading_sections: z.optional(
        list({
          description:
            'Graders only: the registration sections they grade (a limited access grader grades only these); replaces the list; an empty string clears it.',
          items: 'registration sections',
          maxItems: 100,
        }),
      ),
      first_name: z.optional(
        text(100, { description: 'For a user id without an account: its first name (an existing account keeps its own).' }),
      ),
      last_name: z.optional(text(100, { description: 'For a user id without an account: its last name.' })),
      email: z.optional(text(254, { description: 'For a user id without an account: its e-mail address.' })),
    },
  }),
  'drop-member': none,
  'import-class-list': () => ({
    csv: 'class_list',
    query: {
      dry_run: z.optional(flag({ description: 'Report what would change; write nothing.' })),
      drop_missing: z.optional(
        flag({ description: 'Drop the students (with a registration section) who are not in the list; staff stay.' }),
      ),
    },
    body: {
      class_list: z.optional(
        csvDocument({
          description:
            'The class list: a header row naming user_id, first_name, last_name, email, registration_section and group (any order), then a row a member. Sent as the whole `text/csv` body, or as this multipart file field.',
        }),
      ),
    },
  }),
  openapi: none,
  'api-docs': none,
  'api-docs-asset': none,
} satisfies Record<RouteName, () => RouteInput>);

type Inputs = typeof inputs;
type Part<Name extends RouteName, Key extends keyof RouteInput> = Inputs[Name] extends { readonly [K in Key]: infer S extends Shape }
  ? { readonly [F in keyof S]?: z.output<S[F]> }
  : Readonly<Record<never, never>>;

/** The `{name}`s of a path, each a string. */
type ParameterNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | ParameterNames<Rest> : never;
type PathOf<Name extends RouteName> = (typeof routes)[Name]['path'];
export type Params<Name extends RouteName> = { readonly [P in ParameterNames<PathOf<Name>>]: string };

/** What a handler receives of its request, parsed: every field optional (the domain says which it needs). */
export interface Input<Name extends RouteName> {
  readonly query: Part<Name, 'query'>;
  readonly headers: Part<Name, 'headers'>;
  readonly body: Inputs[Name] extends { readonly document: true } ? Readonly<Record<string, unknown>> : Part<Name, 'body'>;
}

const parsers = new Map<Shape, z.ZodMiniType>();

/** One part of a request (query, headers, body) parsed with its shape; null counts as absent. */
function parsePart(shape: Shape | undefined, values: Readonly<Record<string, unknown>>, lowerCaseKeys = false): unknown {
  if (!shape) return {};
  const present: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(shape)) {
    const value = values[lowerCaseKeys ? key.toLowerCase() : key];
    if (value === undefined || value === null) continue;
    present[key] = value;
    any = true;
  }
  // No field has a default: a part that sends none of its fields is `{}` (most reads).
  if (!any) return present;
  let parser = parsers.get(shape);
  if (!parser) parsers.set(shape, (parser = z.partial(z.object(shape))));
  const result = parser.safeParse(present, { error: fieldMessage });
  if (!result.success) throw invalidInput(result.error.issues.map((issue) => issue.message).at(0) ?? 'The request is not valid.');
  return result.data;
}

/** Parses a request's query, headers and body fields; the first value not of its kind is refused. */
export function parseInput<Name extends RouteName>(
  name: Name,
  request: {
    query?: Readonly<Record<string, unknown>>;
    headers?: Readonly<Record<string, unknown>>;
    body?: Readonly<Record<string, unknown>>;
  },
): Input<Name> {
  const declared: RouteInput = inputs[name];
  return {
    query: parsePart(declared.query, request.query ?? {}),
    headers: parsePart(declared.headers, request.headers ?? {}, true),
    body: declared.document ? (request.body ?? {}) : parsePart(declared.body, request.body ?? {}),
  } as Input<Name>;
}
