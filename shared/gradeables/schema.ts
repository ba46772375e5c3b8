/**
 * The gradeable JSON (the reference's format, plus our `autograding` object), declared once with zod:
 * validation (validate.ts), the TypeScript types and the OpenAPI document's `Gradeable` schema
 * (`gradeableJsonSchema`) all come from here.
 *
 * Problems are worded for the field's full path (`rubric[0].max_value must lie between the
 * clamps.`), which zod knows only once an issue reaches the document: fields name their own
 * message with `says`, and `problemMessage` words the rest (a wrong type, a length, a range).
 * The reference's own messages stay word for word.
 *
 * Dates are read in the course's time zone, and a missing one defaults to a time from now:
 * `gradeableSchemas(dateContext)` gives the schemas that do so; without a context they only
 * describe the form (the OpenAPI document and the types). Nothing is built before it is needed.
 */
import * as z from 'zod';
import { MAX_TEAM_MEMBERS } from '#shared/data/transaction-limits.ts';
import { GRADEABLE_ID } from '#shared/ids.ts';
import { GRADEABLE_DATE_FORM, parseGradeableDate } from './time-zone.ts';

/** `build`'s value, built on the first call. */
// Calling it builds nothing, so a bundle whose handler never uses a schema drops the module's zod.
/* @__NO_SIDE_EFFECTS__ */
function once<T>(build: () => T): () => T {
  let value: { readonly built: T } | undefined;
  return () => (value ??= { built: build() }).built;
}

export const gradeableTypes = ['Electronic File', 'Checkpoints', 'Numeric'] as const;
export type GradeableType = (typeof gradeableTypes)[number];

export const syllabusBuckets = [
  'homework',
  'assignment',
  'problem-set',
  'quiz',
  'test',
  'exam',
  'exercise',
  'lecture-exercise',
  'reading',
  'lab',
  'recitation',
  'worksheet',
  'project',
  'participation',
  'note',
  'none (for practice only)',
] as const;

export const repositoryTypes = ['submitty-hosted', 'submitty-hosted-url', 'public-github', 'private-github', 'self-hosted'] as const;

/** Every date of an Electronic File gradeable, in the order downloads show them. */
export const electronicDates = [
  'ta_view_start_date',
  'grade_start_date',
  'grade_due_date',
  'grade_released_date',
  'team_lock_date',
  'submission_open_date',
  'submission_due_date',
  'grade_inquiry_start_date',
  'grade_inquiry_due_date',
] as const;
/** Checkpoints and Numeric gradeables are graded by TAs only. */
export const gradingDates = ['ta_view_start_date', 'grade_start_date', 'grade_due_date', 'grade_released_date'] as const;
export type DateName = (typeof electronicDates)[number];

/** The range a gradeable may ask for each limit, whatever the operator allows. */
export const LIMIT_SETTING_RANGES = {
  processes: { min: 4, max: 4096 },
  memory_mib: { min: 16, max: 65_536 },
  cpu_seconds: { min: 1, max: 3600 },
  file_size_mib: { min: 1, max: 65_536 },
  disk_mib: { min: 1, max: 65_536 },
} as const;

export const MAX_DOCUMENT_BYTES = 256 * 1024;
export const MAX_TEST_CASES = 100;
export const MAX_RUBRIC_COMPONENTS = 100;
export const MAX_MARKS = 50;
export const MAX_TIMEOUT_SECONDS = 600;
/** The most a gradeable's `submission_limits` may ask for, whatever the operator allows. */
export const MAX_SUBMISSION_FILES = 100_000;
export const MAX_SUBMISSION_BYTES = 10 * 1024 * 1024 * 1024;

export const REQUIRES_ID_TITLE_TYPE = 'JSON requires id, title, and type. See documentation for information';
export const INVALID_TYPE = 'An error has occurred: Invalid type';
export const INVALID_SYLLABUS_BUCKET = `An error has occurred: Syllabus bucket must be one of the following: ${syllabusBuckets.join(', ')}.`;
export const RUBRIC_PARAMETERS = 'Rubric component does not have all of the parameters';
const VCS_PARAMETERS = 'VCS gradeables need vcs.repository_type and vcs.vcs_path.';
const TEAM_PARAMETERS = 'Team gradeables need team_gradeable.team_size_max.';

/** The names the `gradingImages` context gives approved images. */
export const IMAGE_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** `rubric[0].marks[1].points`: a problem's path as the API names it. */
export function pathName(path: readonly PropertyKey[]): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`)).join('');
}

/** A message written for the field's full path. */
type Wording = (path: string) => string;
type Issue = { readonly path?: readonly PropertyKey[] | undefined; readonly input?: unknown };
/** A field's own message for every problem it has (zod's `error` parameter). */
const says = (wording: Wording) => (issue: Issue) => wording(pathName(issue.path ?? []));
/** A required field's message when it is missing; other problems keep their usual wording. */
const whenMissing = (wording: Wording | string) => (issue: Issue) =>
  issue.input !== undefined ? undefined : typeof wording === 'string' ? wording : says(wording)(issue);
/** Replaces the last key of a path (`dates.submission_due_date` → `dates.submission_open_date`). */
const sibling = (path: string, key: string) => path.replace(/[^.]+$/, key);

/** Reports a cross-field problem from a refinement; `problemMessage` words it. */
function report(ctx: z.RefinementCtx, path: PropertyKey[], wording: Wording): void {
  ctx.addIssue({ code: 'custom', path, params: { wording } });
}

const typeWording: Record<string, string> = {
  string: 'must be a string',
  boolean: 'must be true or false',
  number: 'must be a number',
  object: 'must be an object',
  array: 'must be a list',
};
const wrongType = (expected: string, at: string) => (typeWording[expected] ? `${at} ${typeWording[expected]}.` : undefined);

/** The usual wording of a problem no field words itself. Pass it as `error` to `safeParse`. */
export const problemMessage: z.core.$ZodErrorMap = (issue) => {
  const at = pathName(issue.path ?? []);
  switch (issue.code) {
    case 'invalid_type':
      return wrongType(issue.expected, at);
    case 'too_big':
      if (issue.origin === 'string') return `${at} must be at most ${issue.maximum} characters long.`;
      if (issue.origin === 'array') return `${at} may hold at most ${issue.maximum} entries.`;
      return `${at} must be at most ${issue.maximum}.`;
    case 'too_small':
      return issue.inclusive ? `${at} must be at least ${issue.minimum}.` : `${at} must be more than ${issue.minimum}.`;
    case 'not_multiple_of':
      return `${at} must be a whole number.`;
    case 'custom':
      return (issue.params?.wording as Wording | undefined)?.(at);
    default:
      return undefined;
  }
};

type Params = { error?: (issue: Issue) => string | undefined };
// Field kinds; `params.error` words a field's own problems (a missing required field, say).
const text = (max: number, params?: Params) => z.string(params).max(max);
const flag = (fallback: boolean) => z.boolean().default(fallback);
/** A whole number in a range; a fraction is reported, then the range is still checked. */
const wholeNumber = (min: number, max: number, params?: Params) => z.number(params).multipleOf(1).min(min).max(max);
const points = (params?: Params) => z.number(params).min(-10_000).max(10_000);

/**
 * Lets a refinement of an object (or list) run although a field it reads is invalid (that field
 * is reported already, and counts as missing), so that every problem is listed at once.
 */
const evenIfInvalid = {
  object: { when: (payload: { value: unknown }) => isObject(payload.value) },
  list: { when: (payload: { value: unknown }) => Array.isArray(payload.value) },
};
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A number as a refinement reads it: an invalid or missing one counts as 0. */
const numberOr0 = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * The parts both kinds of gradeable share, built on first use: most functions only need this
 * module's constants and types, and building zod schemas is a large part of a cold start.
 */
const parts = once(() => {
  const markSchema = z.object({
    points: points(),
    title: text(500),
    publish: flag(false),
  });

  const component = { error: whenMissing(RUBRIC_PARAMETERS) };
  const rubricComponentSchema = z
    .object({
      title: text(200, component),
      ta_comment: text(10_000, component),
      student_comment: text(10_000, component),
      lower_clamp: points(component),
      default: points(component),
      max_value: z.number(component).min(0).max(10_000),
      upper_clamp: points(component),
      text: z.boolean(component),
      peer_component: z.boolean(component),
      page: wholeNumber(-1, 10_000, component),
      is_itempool_linked: z.boolean(component),
      itempool: text(100, component),
      marks: z.array(markSchema, component).max(MAX_MARKS),
    })
    .superRefine((component, ctx) => {
      const lower = numberOr0(component.lower_clamp);
      const upper = numberOr0(component.upper_clamp);
      if (lower > upper) report(ctx, ['lower_clamp'], (at) => `${at} must not be above ${sibling(at, 'upper_clamp')}.`);
      for (const key of ['default', 'max_value'] as const) {
        const value = numberOr0(component[key]);
        if (value < lower || value > upper) report(ctx, [key], (at) => `${at} must lie between the clamps.`);
      }
      if (!Array.isArray(component.marks)) return;
      component.marks.forEach((mark: unknown, index) => {
        const value = numberOr0(isObject(mark) ? mark.points : undefined);
        if (Math.abs(value) > upper - lower)
          report(ctx, ['marks', index, 'points'], (at) => `${at} must not exceed the span of the clamps.`);
      });
    }, evenIfInvalid.object)
    .meta({ description: 'A rubric component; the reference requires every field.' });

  const limitFields = Object.fromEntries(
    Object.entries(LIMIT_SETTING_RANGES).map(([name, range]) => [name, wholeNumber(range.min, range.max).optional()]),
  ) as { [Name in keyof typeof LIMIT_SETTING_RANGES]: z.ZodOptional<z.ZodNumber> };
  const limitsSchema = z
    .object(limitFields)
    .meta({ description: "Limits for test commands; the server caps each at its operator's bound (GRADING_MAX_*)." });

  const relativePath = says((at) => `${at} must be a relative path inside the submission.`);
  const expectationSchema = z
    .object({
      exit_code: wholeNumber(0, 255).optional(),
      stdout: text(65_536).optional(),
      stdout_contains: text(65_536).optional(),
      files_exist: z
        .array(
          z
            .string({ error: relativePath })
            .min(1, { error: relativePath })
            .max(255, { error: relativePath })
            // One message for a path: only a path of the right length is looked into.
            .refine(isRelativePath, { error: relativePath, when: (payload) => payload.issues.length === 0 }),
        )
        .max(50)
        .optional(),
    })
    .superRefine((expectation, ctx) => {
      if (Object.values(expectation).every((value) => value === undefined)) report(ctx, [], (at) => `${at} must expect something.`);
    }, evenIfInvalid.object)
    .meta({ description: 'What the command must do; every expectation given must hold.' });

  const notBlank = { error: says((at) => `${at} cannot be blank.`) };
  /** Text with something other than white space in it. */
  const filled = (max: number) =>
    text(max)
      .min(1, notBlank)
      .refine((value) => value === '' || value.trim() !== '', notBlank);
  const testCaseSchema = z
    .object({
      name: filled(200),
      command: filled(4096),
      details: text(2000).default(''),
      points_available: z.number().min(0).max(1000).default(0),
      is_extra_credit: flag(false),
      is_hidden: flag(false),
      timeout_seconds: z.number().gt(0).max(MAX_TIMEOUT_SECONDS).default(10),
      expect: expectationSchema.default({ exit_code: 0 }),
      limits: limitsSchema.optional(),
    })
    // Checked name and command first; kept (and downloaded) with the details before the command.
    .transform(({ name, command, details, ...rest }) => ({ name, details, command, ...rest }));

  const atLeastOneTestCase: Wording = (at) => `${at} must list at least one test case.`;
  const autogradingSchema = z
    .object({
      test_cases: z
        .array(testCaseSchema, { error: whenMissing(atLeastOneTestCase) })
        .min(1, { error: says(atLeastOneTestCase) })
        .max(MAX_TEST_CASES)
        .superRefine((testCases, ctx) => {
          const names = new Set<string>();
          testCases.forEach((testCase: unknown, index) => {
            const name = isObject(testCase) ? testCase.name : undefined;
            if (typeof name !== 'string') return;
            if (names.has(name)) report(ctx, [index, 'name'], (at) => `${at} repeats the name of an earlier test case.`);
            names.add(name);
          });
        }, evenIfInvalid.list),
      limits: limitsSchema.optional(),
      image: text(32)
        .regex(IMAGE_NAME, {
          error: says((at) => `${at} must be an image name: lower-case letters, digits and hyphens, starting with a letter.`),
        })
        .optional()
        .meta({
          description: "In AWS: the approved build image the test cases run in (the deployment's `gradingImages`); `default` when absent.",
        }),
    })
    // Checked test cases first; kept (and downloaded) with the image first.
    .transform(({ test_cases, limits, image }) => ({
      ...(image !== undefined ? { image } : {}),
      test_cases,
      ...(limits !== undefined ? { limits } : {}),
    }));

  const electronicDateFlags = {
    has_due_date: flag(true),
    has_release_date: flag(true),
    late_submission_allowed: flag(true),
    late_days: wholeNumber(0, 1000).default(0),
  };
  return { markSchema, rubricComponentSchema, limitsSchema, expectationSchema, testCaseSchema, autogradingSchema, electronicDateFlags };
});
type Parts = ReturnType<typeof parts>;

function isRelativePath(path: string): boolean {
  return !path.startsWith('/') && !path.split('/').includes('..');
}

/** How dates are read: in the course's time zone, missing ones from `now`, and which must be in order. */
export interface DateContext {
  readonly timeZone: string;
  readonly now: Date;
  /** The document's `ta_grading` and `grade_inquiries`: grading and inquiry dates are ordered only then. */
  readonly taGrading: boolean;
  readonly gradeInquiries: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A date a new gradeable gets when the document leaves it out (days from now): open now, due in a week. */
const defaultDays: Record<DateName, number> = {
  ta_view_start_date: 0,
  grade_start_date: 7,
  grade_due_date: 14,
  grade_released_date: 14,
  team_lock_date: 7,
  submission_open_date: 0,
  submission_due_date: 7,
  grade_inquiry_start_date: 14,
  grade_inquiry_due_date: 21,
};

/** Every date the order may hold, earliest first, each with its default's days after the one before it. */
const dateChain: readonly (readonly [DateName, number])[] = [
  ['ta_view_start_date', 0],
  ['submission_open_date', 0],
  ['submission_due_date', 7],
  ['grade_start_date', 0],
  ['grade_due_date', 7],
  ['grade_released_date', 0],
  ['grade_inquiry_start_date', 0],
  ['grade_inquiry_due_date', 7],
];

/**
 * A document's dates with those it left out filled in: each its default from `now`, but never
 * before the date before it in the order (with the default's gap: grading due a week after a due
 * date given a month away) nor after the date after it. A left-out date so never contradicts the
 * dates given, wherever they are; only dates given out of order are refused.
 */
export function withDefaultDates<Name extends DateName>(
  names: readonly Name[],
  given: Partial<Record<Name, string>>,
  now: Date,
): Record<Name, string> {
  const base = Math.floor(now.getTime() / 1000) * 1000;
  const dates = Object.fromEntries(
    names.map((name) => [name, given[name] ?? new Date(base + defaultDays[name] * DAY_MS).toISOString()]),
  ) as Record<Name, string>;
  const chain = dateChain.filter((link): link is readonly [Name, number] => (names as readonly DateName[]).includes(link[0]));
  let previous: string | undefined;
  for (const [name, gap] of chain) {
    const earliest = previous === undefined ? undefined : new Date(Date.parse(previous) + gap * DAY_MS).toISOString();
    if (given[name] === undefined && earliest !== undefined && dates[name] < earliest) dates[name] = earliest;
    previous = dates[name];
  }
  let next: string | undefined;
  for (const [name] of [...chain].reverse()) {
    if (given[name] === undefined && next !== undefined && dates[name] > next) dates[name] = next;
    next = dates[name];
  }
  return dates;
}

/** Pairs of dates in order (earlier, later), and when they must be. */
const dateOrder = {
  electronic: [
    ['ta_view_start_date', 'submission_open_date'],
    ['submission_open_date', 'submission_due_date'],
  ],
  taGrading: [
    ['submission_due_date', 'grade_start_date'],
    ['grade_start_date', 'grade_due_date'],
    ['grade_due_date', 'grade_released_date'],
  ],
  gradeInquiries: [
    ['submission_due_date', 'grade_inquiry_start_date'],
    ['grade_released_date', 'grade_inquiry_start_date'],
    ['grade_inquiry_start_date', 'grade_inquiry_due_date'],
  ],
  graded: [
    ['ta_view_start_date', 'grade_start_date'],
    ['grade_start_date', 'grade_due_date'],
    ['grade_due_date', 'grade_released_date'],
  ],
} as const satisfies Record<string, readonly (readonly [DateName, DateName])[]>;

const localDateDescription = '`YYYY-MM-DD HH:MM:SS` in the course time zone (ISO 8601 with an offset is accepted on upload).';

/** One date: its form, or (with a context) the instant it names in the course's time zone. */
function dateSchema(name: DateName, context: DateContext | undefined) {
  if (!context) return z.string().regex(GRADEABLE_DATE_FORM).optional().meta({ description: localDateDescription });
  const { timeZone } = context;
  const wording: Wording = (at) => `${at} must be a date of the form YYYY-MM-DD HH:MM:SS that exists in ${timeZone}.`;
  // Left out, it is filled in with the others (withDefaultDates), so that it fits the dates given.
  return z
    .string({ error: says(wording) })
    .regex(GRADEABLE_DATE_FORM, { error: says(wording) })
    .transform((value, ctx) => {
      const instant = parseGradeableDate(value, timeZone);
      if (instant === undefined) report(ctx, [], wording);
      return instant ?? z.NEVER;
    })
    .optional();
}

function datesSchema<Name extends DateName, Extra extends z.ZodRawShape>(
  names: readonly Name[],
  extra: Extra,
  order: readonly (readonly [Name, Name])[],
  context: DateContext | undefined,
) {
  const fields = Object.fromEntries(names.map((name) => [name, dateSchema(name, context)])) as Record<Name, ReturnType<typeof dateSchema>>;
  const given = (dates: Record<string, unknown>, invalid: ReadonlySet<unknown>) =>
    Object.fromEntries(
      names.filter((name) => typeof dates[name] === 'string' && !invalid.has(name)).map((name) => [name, dates[name]]),
    ) as Partial<Record<Name, string>>;
  return z
    .object({ ...fields, ...extra })
    .superRefine((dates: Record<string, unknown>, ctx) => {
      const invalid = new Set(ctx.issues.map((issue) => issue.path?.[0]));
      const filled: Partial<Record<string, string>> = context
        ? withDefaultDates(names, given(dates, invalid), context.now)
        : given(dates, invalid);
      for (const [earlier, later] of order) {
        const [a, b] = [filled[earlier], filled[later]];
        if (invalid.has(earlier) || invalid.has(later) || a === undefined || b === undefined) continue;
        if (a > b) report(ctx, [later], (at) => `${sibling(at, earlier)} must not be after ${at}.`);
      }
    }, evenIfInvalid.object)
    .transform((dates) =>
      context ? { ...dates, ...withDefaultDates(names, given(dates as Record<string, unknown>, new Set()), context.now) } : dates,
    )
    .prefault({} as never)
    .meta({
      description:
        'Dates in order: TA view ≤ open ≤ due; with ta_grading, due ≤ grading start ≤ grading due ≤ release; with grade_inquiries, due and release ≤ inquiry start ≤ inquiry due. Left out: open now, due a week later, each other date its default moved to fit the dates given.',
    });
}

/**
 * The schemas of both kinds of gradeable: Electronic File, and Checkpoints or Numeric (TA graded
 * only; an unknown type is checked as one of these). With a context they read dates as
 * validateGradeable needs; without, they describe the JSON (`gradeableSchema`).
 */
export function gradeableSchemas(context?: DateContext) {
  const common = {
    title: text(200),
    id: text(64).regex(GRADEABLE_ID, { error: () => 'The id must be 1 to 64 letters, digits, underscores or hyphens.' }),
  };
  const described = {
    instructions_url: text(2000)
      .refine((url) => url === '' || /^https?:\/\//i.test(url), { error: says((at) => `${at} must be an http(s) URL or empty.`) })
      .default(''),
    syllabus_bucket: z
      .enum(syllabusBuckets, {
        error: (issue) => (typeof issue.input === 'string' ? INVALID_SYLLABUS_BUCKET : wrongType('string', pathName(issue.path ?? []))),
      })
      .default('homework'),
    autograding_config_path: text(1000).default(''),
  };
  const { rubricComponentSchema, autogradingSchema, electronicDateFlags } = parts();
  const grading = {
    rubric: z.array(rubricComponentSchema).max(MAX_RUBRIC_COMPONENTS).default([]),
    autograding: autogradingSchema.optional(),
  };
  // Checked title and id before the type; kept (and downloaded) as title, type, id.
  const downloadOrder = <T extends { title: string; id: string; type: string }>({ title, id, type, ...rest }: T): T =>
    ({ title, type, id, ...rest }) as T;
  // Grading dates are ordered only when the document grades by TAs, inquiry dates only when it takes
  // inquiries (after the due date and the release, TA graded or not); without a context (a
  // document's form alone) nothing says so, so only the submission dates are.
  const order = [
    ...dateOrder.electronic,
    ...(context?.taGrading ? dateOrder.taGrading : []),
    ...(context?.gradeInquiries ? dateOrder.gradeInquiries : []),
  ];
  return {
    electronic: z
      .object({
        ...common,
        type: z.literal('Electronic File', { error: () => INVALID_TYPE }),
        ...described,
        bulk_upload: flag(false),
        team_gradeable: z
          .object({
            team_size_max: wholeNumber(1, MAX_TEAM_MEMBERS, { error: whenMissing(TEAM_PARAMETERS) }),
            inherit_from: text(64).default(''),
          })
          .optional(),
        ta_grading: flag(false),
        grade_inquiries: flag(false),
        // Not in the reference's documents: left out unless sent (false then), so that they round-trip exactly.
        grade_inquiry_per_component_allowed: z.boolean().optional(),
        vcs: z
          .object({
            repository_type: z.enum(repositoryTypes, {
              error: (issue) =>
                issue.input === undefined || issue.input === ''
                  ? VCS_PARAMETERS
                  : typeof issue.input === 'string'
                    ? `${pathName(issue.path ?? [])} must be one of ${repositoryTypes.join(', ')}.`
                    : wrongType('string', pathName(issue.path ?? [])),
            }),
            vcs_path: text(1000, { error: whenMissing(VCS_PARAMETERS) }).min(1, { error: () => VCS_PARAMETERS }),
            vcs_subdirectory: text(255)
              .refine(isRelativePath, { error: says((at) => `${at} must be a relative path inside the repository.`) })
              .default(''),
          })
          .optional(),
        dates: datesSchema(electronicDates, electronicDateFlags, order, context),
        ...grading,
        submission_limits: z
          .object({
            max_files: wholeNumber(1, MAX_SUBMISSION_FILES).optional(),
            max_bytes: wholeNumber(1, MAX_SUBMISSION_BYTES).optional(),
          })
          .optional()
          .meta({
            description:
              'Files gradeables (no `vcs`): the most files and bytes a submission may hold once its zips are unpacked; the server caps each at its operator’s bound (SUBMISSION_MAX_FILES, SUBMISSION_MAX_BYTES).',
          }),
      })
      .transform(downloadOrder),
    graded: z
      .object({
        ...common,
        type: z.enum(['Checkpoints', 'Numeric'], { error: () => INVALID_TYPE }),
        ...described,
        dates: datesSchema(gradingDates, {}, dateOrder.graded, context),
        ...grading,
      })
      .transform(downloadOrder),
  };
}

/**
 * The gradeable JSON as one zod schema, without a date context: it checks a document's form (the
 * answer of a download is checked with it in the tests), and renders as `gradeableJsonSchema`.
 */
export const gradeableDocumentSchema = /* @__PURE__ */ once(() => {
  const declared = gradeableSchemas();
  return z.discriminatedUnion('type', [declared.electronic, declared.graded]).meta({
    description: `Gradeable JSON (reference format plus \`autograding\`); at most ${MAX_DOCUMENT_BYTES} bytes. Only id, title and type are required.`,
  });
});

/** wholeNumber's `multipleOf(1)` is JSON Schema's integer: a `z.toJSONSchema` override. */
export function integerOverride({ jsonSchema }: { jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  if (jsonSchema.type === 'number' && jsonSchema.multipleOf === 1) {
    jsonSchema.type = 'integer';
    delete jsonSchema.multipleOf;
  }
}

/**
 * The gradeable JSON as JSON Schema (2020-12, as OpenAPI 3.1 uses it, without `$schema`): what an
 * upload may send, and what a download gives. Only the OpenAPI document reads it; the call is
 * marked pure so that the functions' bundles, which never do, leave it out.
 */
export const gradeableJsonSchema: Record<string, unknown> = /* @__PURE__ */ describeGradeable();

function describeGradeable(): Record<string, unknown> {
  const schema: Record<string, unknown> = z.toJSONSchema(gradeableDocumentSchema(), {
    io: 'input',
    target: 'draft-2020-12',
    override: integerOverride,
  });
  delete schema.$schema;
  return schema;
}

type Declared = ReturnType<typeof gradeableSchemas>;
type Electronic = z.output<Declared['electronic']>;
type Graded = z.output<Declared['graded']>;
/** The fields only Electronic File gradeables have. */
type ElectronicOnly = Exclude<keyof Electronic, keyof Graded>;

export type Mark = z.output<Parts['markSchema']>;
export type RubricComponent = z.output<Parts['rubricComponentSchema']>;
export type Expectation = z.output<Parts['expectationSchema']>;
/**
 * Limits a gradeable asks for its test commands (all optional): for the whole gradeable under
 * `autograding.limits`, for one test case under its `limits`. The grading pipeline caps each at
 * the bound the server's operator configured.
 */
export type LimitSettings = z.output<Parts['limitsSchema']>;
/** One autograding test case; `name, details, is_extra_credit, points_available` are exactly
 * the fields of the reference's `values.test_cases`. */
export type TestCase = z.output<Parts['testCaseSchema']>;
export type GradeableDates = Partial<Electronic['dates']>;
/** A gradeable of any type, as stored (dates as UTC instants) and downloaded (dates local). */
export type GradeableDocument = Omit<Graded, 'type' | 'dates'> &
  Partial<Pick<Electronic, ElectronicOnly>> & { type: GradeableType; dates: GradeableDates };
