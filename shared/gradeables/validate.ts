import {
  electronicDates,
  gradeableTypes,
  gradingDates,
  isValidGradeableId,
  LIMIT_SETTING_RANGES,
  MAX_DOCUMENT_BYTES,
  MAX_MARKS,
  MAX_RUBRIC_COMPONENTS,
  MAX_TEST_CASES,
  MAX_TIMEOUT_SECONDS,
  repositoryTypes,
  syllabusBuckets,
  type DateName,
  type Expectation,
  type GradeableDates,
  type GradeableDocument,
  type GradeableType,
  type LimitSettings,
  type Mark,
  type RubricComponent,
  type TestCase,
} from './gradeable.ts';
import { parseGradeableDate } from './time-zone.ts';

export interface ValidationError {
  readonly path: string;
  readonly message: string;
}

export const REQUIRES_ID_TITLE_TYPE = 'JSON requires id, title, and type. See documentation for information';
export const INVALID_TYPE = 'An error has occurred: Invalid type';
export const RUBRIC_PARAMETERS = 'Rubric component does not have all of the parameters';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Collects every problem with its JSON path, reading fields with defaults. */
class Reader {
  readonly errors: ValidationError[] = [];

  fail(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  string(object: Json, key: string, path: string, options: { fallback?: string; max?: number } = {}): string {
    const value = object[key];
    if (value === undefined && options.fallback !== undefined) return options.fallback;
    if (typeof value !== 'string') {
      this.fail(`${path}${key}`, `${path}${key} must be a string.`);
      return '';
    }
    const max = options.max ?? 1000;
    if (value.length > max) this.fail(`${path}${key}`, `${path}${key} must be at most ${max} characters long.`);
    return value;
  }

  boolean(object: Json, key: string, path: string, fallback?: boolean): boolean {
    const value = object[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'boolean') {
      this.fail(`${path}${key}`, `${path}${key} must be true or false.`);
      return false;
    }
    return value;
  }

  number(
    object: Json,
    key: string,
    path: string,
    options: { fallback?: number; min?: number; max?: number; integer?: boolean } = {},
  ): number {
    const value = object[key];
    if (value === undefined && options.fallback !== undefined) return options.fallback;
    const where = `${path}${key}`;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(where, `${where} must be a number.`);
      return 0;
    }
    if (options.integer && !Number.isInteger(value)) this.fail(where, `${where} must be a whole number.`);
    if (options.min !== undefined && value < options.min) this.fail(where, `${where} must be at least ${options.min}.`);
    if (options.max !== undefined && value > options.max) this.fail(where, `${where} must be at most ${options.max}.`);
    return value;
  }

  object(object: Json, key: string, path: string): Json | undefined {
    const value = object[key];
    if (value === undefined) return undefined;
    if (!isObject(value)) {
      this.fail(`${path}${key}`, `${path}${key} must be an object.`);
      return undefined;
    }
    return value;
  }

  array(object: Json, key: string, path: string, max: number): unknown[] | undefined {
    const value = object[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.fail(`${path}${key}`, `${path}${key} must be a list.`);
      return undefined;
    }
    if (value.length > max) this.fail(`${path}${key}`, `${path}${key} may hold at most ${max} entries.`);
    return value.slice(0, max);
  }
}

/**
 * Checks a gradeable JSON document and returns it in canonical form (defaults filled in, keys in
 * download order, dates as UTC instants), or every problem found. Dates are read in `timeZone`.
 */
export function validateGradeable(
  input: unknown,
  context: { timeZone: string; now: Date },
): { document: GradeableDocument; errors: [] } | { document?: undefined; errors: ValidationError[] } {
  if (!isObject(input)) return { errors: [{ path: '', message: 'The gradeable JSON must be an object.' }] };
  if (JSON.stringify(input).length > MAX_DOCUMENT_BYTES) {
    return { errors: [{ path: '', message: `The gradeable JSON must be at most ${MAX_DOCUMENT_BYTES} bytes.` }] };
  }
  const missing = ['id', 'title', 'type'].filter((key) => input[key] === undefined || input[key] === '');
  if (missing.length > 0) return { errors: missing.map((path) => ({ path, message: REQUIRES_ID_TITLE_TYPE })) };

  const read = new Reader();
  const title = read.string(input, 'title', '', { max: 200 });
  const id = read.string(input, 'id', '', { max: 64 });
  if (typeof input.id === 'string' && !isValidGradeableId(id)) {
    read.fail('id', 'The id must be 1 to 64 letters, digits, underscores or hyphens.');
  }
  if (!gradeableTypes.includes(input.type as GradeableType)) read.fail('type', INVALID_TYPE);
  const type = input.type as GradeableType;
  const electronic = type === 'Electronic File';

  const instructionsUrl = read.string(input, 'instructions_url', '', { fallback: '', max: 2000 });
  if (instructionsUrl && !/^https?:\/\//i.test(instructionsUrl)) {
    read.fail('instructions_url', 'instructions_url must be an http(s) URL or empty.');
  }
  const syllabusBucket = read.string(input, 'syllabus_bucket', '', { fallback: 'homework', max: 100 });
  if (!(syllabusBuckets as readonly string[]).includes(syllabusBucket)) {
    read.fail('syllabus_bucket', `Syllabus bucket must be one of the following: ${syllabusBuckets.join(', ')}.`);
  }
  // Keys are added in download order: the stored JSON text keeps it.
  const document = {
    title,
    type,
    id,
    instructions_url: instructionsUrl,
    syllabus_bucket: syllabusBucket,
    autograding_config_path: read.string(input, 'autograding_config_path', '', { fallback: '', max: 1000 }),
  } as GradeableDocument;

  if (electronic) {
    document.bulk_upload = read.boolean(input, 'bulk_upload', '', false);
    const team = read.object(input, 'team_gradeable', '');
    if (team) {
      if (team.team_size_max === undefined) read.fail('team_gradeable.team_size_max', 'Team gradeables need team_gradeable.team_size_max.');
      document.team_gradeable = {
        team_size_max: read.number(team, 'team_size_max', 'team_gradeable.', { fallback: 0, min: 1, max: 100, integer: true }),
        inherit_from: read.string(team, 'inherit_from', 'team_gradeable.', { fallback: '', max: 64 }),
      };
    }
    document.ta_grading = read.boolean(input, 'ta_grading', '', false);
    document.grade_inquiries = read.boolean(input, 'grade_inquiries', '', false);
    const vcs = read.object(input, 'vcs', '');
    if (vcs) document.vcs = readVcs(read, vcs);
  }
  document.dates = readDates(read, read.object(input, 'dates', '') ?? {}, document, context);
  document.rubric = (read.array(input, 'rubric', '', MAX_RUBRIC_COMPONENTS) ?? []).map((component, index) =>
    readComponent(read, component, `rubric[${index}]`),
  );
  const autograding = read.object(input, 'autograding', '');
  if (autograding) {
    const testCases = readTestCases(read, autograding);
    const limits = readLimits(read, autograding, 'autograding.');
    const image = readImage(read, autograding);
    document.autograding = { ...(image ? { image } : {}), test_cases: testCases, ...(limits ? { limits } : {}) };
  }

  return read.errors.length > 0 ? { errors: read.errors } : { document, errors: [] };
}

function readVcs(read: Reader, vcs: Json): NonNullable<GradeableDocument['vcs']> {
  for (const key of ['repository_type', 'vcs_path']) {
    if (vcs[key] === undefined || vcs[key] === '') read.fail(`vcs.${key}`, 'VCS gradeables need vcs.repository_type and vcs.vcs_path.');
  }
  const repositoryType = read.string(vcs, 'repository_type', 'vcs.', { fallback: '', max: 50 });
  if (repositoryType && !(repositoryTypes as readonly string[]).includes(repositoryType)) {
    read.fail('vcs.repository_type', `vcs.repository_type must be one of ${repositoryTypes.join(', ')}.`);
  }
  const subdirectory = read.string(vcs, 'vcs_subdirectory', 'vcs.', { fallback: '', max: 255 });
  if (subdirectory.split('/').includes('..') || subdirectory.startsWith('/')) {
    read.fail('vcs.vcs_subdirectory', 'vcs.vcs_subdirectory must be a relative path inside the repository.');
  }
  return {
    repository_type: repositoryType,
    vcs_path: read.string(vcs, 'vcs_path', 'vcs.', { fallback: '', max: 1000 }),
    vcs_subdirectory: subdirectory,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Dates a new gradeable gets when the document leaves them out: open now, due in a week. */
function defaultDates(now: Date): Record<DateName, string> {
  const at = (days: number) => new Date(Math.floor(now.getTime() / 1000) * 1000 + days * DAY_MS).toISOString();
  return {
    ta_view_start_date: at(0),
    grade_start_date: at(7),
    grade_due_date: at(14),
    grade_released_date: at(14),
    team_lock_date: at(7),
    submission_open_date: at(0),
    submission_due_date: at(7),
    grade_inquiry_start_date: at(14),
    grade_inquiry_due_date: at(21),
  };
}

function readDates(read: Reader, input: Json, document: GradeableDocument, context: { timeZone: string; now: Date }): GradeableDates {
  const electronic = document.type === 'Electronic File';
  const names = electronic ? electronicDates : gradingDates;
  const defaults = defaultDates(context.now);
  const dates: GradeableDates = {};
  for (const name of names) {
    const value = input[name];
    if (value === undefined) {
      dates[name] = defaults[name];
    } else if (typeof value !== 'string' || parseGradeableDate(value, context.timeZone) === undefined) {
      read.fail(`dates.${name}`, `dates.${name} must be a date of the form YYYY-MM-DD HH:MM:SS that exists in ${context.timeZone}.`);
    } else {
      dates[name] = parseGradeableDate(value, context.timeZone);
    }
  }
  const inOrder = (earlier: DateName, later: DateName) => {
    const [a, b] = [dates[earlier], dates[later]];
    if (a && b && a > b) read.fail(`dates.${later}`, `dates.${earlier} must not be after dates.${later}.`);
  };
  if (electronic) {
    inOrder('ta_view_start_date', 'submission_open_date');
    inOrder('submission_open_date', 'submission_due_date');
    if (document.ta_grading) {
      inOrder('submission_due_date', 'grade_start_date');
      inOrder('grade_start_date', 'grade_due_date');
      inOrder('grade_due_date', 'grade_released_date');
      if (document.grade_inquiries) {
        inOrder('grade_released_date', 'grade_inquiry_start_date');
        inOrder('grade_inquiry_start_date', 'grade_inquiry_due_date');
      }
    }
    dates.has_due_date = read.boolean(input, 'has_due_date', 'dates.', true);
    dates.has_release_date = read.boolean(input, 'has_release_date', 'dates.', true);
    dates.late_submission_allowed = read.boolean(input, 'late_submission_allowed', 'dates.', true);
    dates.late_days = read.number(input, 'late_days', 'dates.', { fallback: 0, min: 0, max: 1000, integer: true });
  } else {
    inOrder('ta_view_start_date', 'grade_start_date');
    inOrder('grade_start_date', 'grade_due_date');
    inOrder('grade_due_date', 'grade_released_date');
  }
  return dates;
}

const COMPONENT_KEYS = [
  'title',
  'ta_comment',
  'student_comment',
  'lower_clamp',
  'default',
  'max_value',
  'upper_clamp',
  'text',
  'peer_component',
  'page',
  'is_itempool_linked',
  'itempool',
  'marks',
] as const;

function readComponent(read: Reader, input: unknown, path: string): RubricComponent {
  if (!isObject(input)) {
    read.fail(path, `${path} must be an object.`);
    input = {};
  }
  const component = input as Json;
  for (const key of COMPONENT_KEYS) if (component[key] === undefined) read.fail(`${path}.${key}`, RUBRIC_PARAMETERS);
  const at = `${path}.`;
  const points = { min: -10_000, max: 10_000 };
  const result: RubricComponent = {
    title: read.string(component, 'title', at, { fallback: '', max: 200 }),
    ta_comment: read.string(component, 'ta_comment', at, { fallback: '', max: 10_000 }),
    student_comment: read.string(component, 'student_comment', at, { fallback: '', max: 10_000 }),
    lower_clamp: read.number(component, 'lower_clamp', at, { fallback: 0, ...points }),
    default: read.number(component, 'default', at, { fallback: 0, ...points }),
    max_value: read.number(component, 'max_value', at, { fallback: 0, ...points, min: 0 }),
    upper_clamp: read.number(component, 'upper_clamp', at, { fallback: 0, ...points }),
    text: read.boolean(component, 'text', at, false),
    peer_component: read.boolean(component, 'peer_component', at, false),
    page: read.number(component, 'page', at, { fallback: 0, min: -1, max: 10_000, integer: true }),
    is_itempool_linked: read.boolean(component, 'is_itempool_linked', at, false),
    itempool: read.string(component, 'itempool', at, { fallback: '', max: 100 }),
    marks: [],
  };
  const { lower_clamp: lower, upper_clamp: upper } = result;
  if (lower > upper) read.fail(`${at}lower_clamp`, `${at}lower_clamp must not be above ${at}upper_clamp.`);
  for (const key of ['default', 'max_value'] as const) {
    if (result[key] < lower || result[key] > upper) read.fail(`${at}${key}`, `${at}${key} must lie between the clamps.`);
  }
  result.marks = (read.array(component, 'marks', at, MAX_MARKS) ?? []).map((mark, index): Mark => {
    const markPath = `${at}marks[${index}]`;
    if (!isObject(mark)) {
      read.fail(markPath, `${markPath} must be an object.`);
      return { points: 0, title: '', publish: false };
    }
    const value = read.number(mark, 'points', `${markPath}.`, points);
    if (Math.abs(value) > upper - lower) read.fail(`${markPath}.points`, `${markPath}.points must not exceed the span of the clamps.`);
    return {
      points: value,
      title: read.string(mark, 'title', `${markPath}.`, { max: 500 }),
      publish: read.boolean(mark, 'publish', `${markPath}.`, false),
    };
  });
  return result;
}

function readTestCases(read: Reader, autograding: Json): TestCase[] {
  const list = read.array(autograding, 'test_cases', 'autograding.', MAX_TEST_CASES);
  if (!list || list.length === 0) {
    read.fail('autograding.test_cases', 'autograding.test_cases must list at least one test case.');
    return [];
  }
  const names = new Set<string>();
  return list.map((input, index): TestCase => {
    const path = `autograding.test_cases[${index}]`;
    if (!isObject(input)) {
      read.fail(path, `${path} must be an object.`);
      input = {};
    }
    const testCase = input as Json;
    const at = `${path}.`;
    const name = read.string(testCase, 'name', at, { max: 200 });
    if (!name.trim()) read.fail(`${at}name`, `${at}name cannot be blank.`);
    if (names.has(name)) read.fail(`${at}name`, `${at}name repeats the name of an earlier test case.`);
    names.add(name);
    const command = read.string(testCase, 'command', at, { max: 4096 });
    if (!command.trim()) read.fail(`${at}command`, `${at}command cannot be blank.`);
    const result: TestCase = {
      name,
      details: read.string(testCase, 'details', at, { fallback: '', max: 2000 }),
      command,
      points_available: read.number(testCase, 'points_available', at, { fallback: 0, min: 0, max: 1000 }),
      is_extra_credit: read.boolean(testCase, 'is_extra_credit', at, false),
      is_hidden: read.boolean(testCase, 'is_hidden', at, false),
      timeout_seconds: readTimeout(read, testCase, at),
      expect: readExpectation(read, read.object(testCase, 'expect', at) ?? { exit_code: 0 }, `${at}expect.`),
    };
    const limits = readLimits(read, testCase, at);
    return limits ? { ...result, limits } : result;
  });
}

/** The optional `autograding.image`: the name of a build image the deployment approves (see the README). */
function readImage(read: Reader, autograding: Json): string | undefined {
  if (autograding.image === undefined) return undefined;
  const image = read.string(autograding, 'image', 'autograding.', { max: 32 });
  if (typeof autograding.image === 'string' && !IMAGE_NAME.test(image))
    read.fail(
      'autograding.image',
      'autograding.image must be an image name: lower-case letters, digits and hyphens, starting with a letter.',
    );
  return image || undefined;
}

/** The names the `gradingImages` context gives approved images. */
export const IMAGE_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** The optional `limits` object of `object`: whole numbers within LIMIT_SETTING_RANGES; other keys are ignored. */
function readLimits(read: Reader, object: Json, at: string): LimitSettings | undefined {
  const input = read.object(object, 'limits', at);
  if (!input) return undefined;
  const limits: LimitSettings = {};
  for (const [key, range] of Object.entries(LIMIT_SETTING_RANGES) as [keyof LimitSettings, { min: number; max: number }][]) {
    if (input[key] !== undefined) limits[key] = read.number(input, key, `${at}limits.`, { ...range, integer: true });
  }
  return limits;
}

function readTimeout(read: Reader, testCase: Json, at: string): number {
  const value = read.number(testCase, 'timeout_seconds', at, { fallback: 10, max: MAX_TIMEOUT_SECONDS });
  if (value <= 0) read.fail(`${at}timeout_seconds`, `${at}timeout_seconds must be more than 0.`);
  return value;
}

function readExpectation(read: Reader, input: Json, at: string): Expectation {
  const expectation: Expectation = {};
  if (input.exit_code !== undefined) expectation.exit_code = read.number(input, 'exit_code', at, { min: 0, max: 255, integer: true });
  if (input.stdout !== undefined) expectation.stdout = read.string(input, 'stdout', at, { max: 65_536 });
  if (input.stdout_contains !== undefined) {
    expectation.stdout_contains = read.string(input, 'stdout_contains', at, { max: 65_536 });
  }
  const files = read.array(input, 'files_exist', at, 50);
  if (files) {
    expectation.files_exist = files.map((file, index) => {
      const where = `${at}files_exist[${index}]`;
      if (typeof file !== 'string' || !file || file.length > 255 || file.startsWith('/') || file.split('/').includes('..')) {
        read.fail(where, `${where} must be a relative path inside the submission.`);
        return '';
      }
      return file;
    });
  }
  if (Object.keys(expectation).length === 0) read.fail(at.slice(0, -1), `${at.slice(0, -1)} must expect something.`);
  return expectation;
}
