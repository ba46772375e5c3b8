/**
 * The gradeable JSON of reference.md §8, plus our `autograding` object: its enumerations and
 * limits here, its schema (and the types) in schema.ts. The stored form is the same document
 * with every date as a UTC instant (ISO 8601); downloads show dates in the course's time zone as
 * `YYYY-MM-DD HH:MM:SS`.
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

/** The range a gradeable may ask for each limit, whatever the operator allows. */
export const LIMIT_SETTING_RANGES = {
  processes: { min: 4, max: 4096 },
  memory_mib: { min: 16, max: 65_536 },
  cpu_seconds: { min: 1, max: 3600 },
  file_size_mib: { min: 1, max: 65_536 },
  disk_mib: { min: 1, max: 65_536 },
} as const;

/** Gradeable ids: 1–64 letters, digits, `_` and `-`. */
export const GRADEABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const isValidGradeableId = (id: string): boolean => GRADEABLE_ID.test(id);

/**
 * The gradeable id a path names, for building reads before the handler runs: a malformed id
 * becomes a placeholder that keeps the DynamoDB key well-formed (the handler refuses it).
 */
export const pathGradeableId = (value: string | undefined): string => (value !== undefined && isValidGradeableId(value) ? value : '-');

export const MAX_DOCUMENT_BYTES = 256 * 1024;

export type { Expectation, GradeableDates, GradeableDocument, LimitSettings, Mark, RubricComponent, TestCase } from './schema.ts';
