import { isValidGradeableId } from '#shared/ids.ts';
import { gradeableNotFound, gradeableNotSpecified } from './failures.ts';

/**
 * The reference's gradeable JSON (docs/reference-compatibility.md), plus our `autograding` object, as the rest of the code
 * names it: declared in schema.ts. The stored form is the same document with every date as a UTC
 * instant (ISO 8601); downloads show dates in the course's time zone as `YYYY-MM-DD HH:MM:SS`.
 */
export {
  electronicDates,
  gradeableTypes,
  gradingDates,
  LIMIT_SETTING_RANGES,
  MAX_DOCUMENT_BYTES,
  repositoryTypes,
  syllabusBuckets,
} from './schema.ts';
export type {
  DateName,
  Expectation,
  GradeableDates,
  GradeableDocument,
  GradeableType,
  LimitSettings,
  Mark,
  RubricComponent,
  TestCase,
} from './schema.ts';

/** A gradeable id from a path: blank is "not specified", anything malformed cannot exist. */
export function gradeableIdFrom(value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw gradeableNotSpecified();
  if (!isValidGradeableId(value)) throw gradeableNotFound();
  return value;
}
