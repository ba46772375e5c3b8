/**
 * The gradeable JSON of reference.md §8, plus our `autograding` object. The stored form is the
 * same document with every date as a UTC instant (ISO 8601); downloads show dates in the
 * course's time zone as `YYYY-MM-DD HH:MM:SS`.
 */
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

export interface Mark {
  points: number;
  title: string;
  publish: boolean;
}

export interface RubricComponent {
  title: string;
  ta_comment: string;
  student_comment: string;
  lower_clamp: number;
  default: number;
  max_value: number;
  upper_clamp: number;
  text: boolean;
  peer_component: boolean;
  page: number;
  is_itempool_linked: boolean;
  itempool: string;
  marks: Mark[];
}

/** What a test case expects of the command it runs; every given expectation must hold. */
export interface Expectation {
  exit_code?: number;
  stdout?: string;
  stdout_contains?: string;
  files_exist?: string[];
}

/**
 * Limits a gradeable asks for its test commands (all optional): for the whole gradeable under
 * `autograding.limits`, for one test case under its `limits`. The grading pipeline caps each at
 * the bound the server's operator configured.
 */
export interface LimitSettings {
  processes?: number;
  memory_mib?: number;
  cpu_seconds?: number;
  file_size_mib?: number;
  disk_mib?: number;
}

/** The range a gradeable may ask for, whatever the operator allows. */
export const LIMIT_SETTING_RANGES: Record<keyof LimitSettings, { min: number; max: number }> = {
  processes: { min: 4, max: 4096 },
  memory_mib: { min: 16, max: 65_536 },
  cpu_seconds: { min: 1, max: 3600 },
  file_size_mib: { min: 1, max: 65_536 },
  disk_mib: { min: 1, max: 65_536 },
};

/** One autograding test case; `name, details, is_extra_credit, points_available` are exactly
 * the fields of the reference's `values.test_cases`. */
export interface TestCase {
  name: string;
  details: string;
  command: string;
  points_available: number;
  is_extra_credit: boolean;
  is_hidden: boolean;
  timeout_seconds: number;
  expect: Expectation;
  limits?: LimitSettings;
}

export interface GradeableDates extends Partial<Record<DateName, string>> {
  has_due_date?: boolean;
  has_release_date?: boolean;
  late_submission_allowed?: boolean;
  late_days?: number;
}

export interface GradeableDocument {
  title: string;
  type: GradeableType;
  id: string;
  instructions_url: string;
  syllabus_bucket: string;
  autograding_config_path: string;
  bulk_upload?: boolean;
  team_gradeable?: { team_size_max: number; inherit_from: string };
  ta_grading?: boolean;
  grade_inquiries?: boolean;
  vcs?: { repository_type: string; vcs_path: string; vcs_subdirectory: string };
  dates: GradeableDates;
  rubric: RubricComponent[];
  /** `image`: in AWS, the approved build image (by name) the test cases run in; `default` when absent. */
  autograding?: { image?: string; test_cases: TestCase[]; limits?: LimitSettings };
}

export const isElectronic = (document: Pick<GradeableDocument, 'type'>) => document.type === 'Electronic File';

const GRADEABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const isValidGradeableId = (id: string): boolean => GRADEABLE_ID.test(id);

/**
 * The gradeable id a path names, for building reads before the handler runs: a malformed id
 * becomes a placeholder that keeps the DynamoDB key well-formed (the handler refuses it).
 */
export const pathGradeableId = (value: string | undefined): string => (value !== undefined && isValidGradeableId(value) ? value : '-');

export const MAX_DOCUMENT_BYTES = 256 * 1024;
export const MAX_TEST_CASES = 100;
export const MAX_RUBRIC_COMPONENTS = 100;
export const MAX_MARKS = 50;
export const MAX_TIMEOUT_SECONDS = 600;
