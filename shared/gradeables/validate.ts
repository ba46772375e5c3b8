import {
  gradeableSchemas,
  MAX_DOCUMENT_BYTES,
  pathName,
  problemMessage,
  REQUIRES_ID_TITLE_TYPE,
  type GradeableDocument,
} from './schema.ts';
import { REDACTED_DOCUMENT, REDACTED_FIELD } from './failures.ts';

export { REQUIRES_ID_TITLE_TYPE };

export interface ValidationError {
  readonly path: string;
  readonly message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a gradeable JSON document against its schema (schema.ts) and returns it in canonical
 * form (defaults filled in, keys in download order, dates as UTC instants), or every problem
 * found, in the document's order. Dates are read in `timeZone`; missing ones count from `now`.
 */
export function validateGradeable(
  input: unknown,
  context: { timeZone: string; now: Date },
): { document: GradeableDocument; errors: [] } | { document?: undefined; errors: ValidationError[] } {
  if (!isObject(input)) return { errors: [{ path: '', message: 'The gradeable JSON must be an object.' }] };
  if (JSON.stringify(input).length > MAX_DOCUMENT_BYTES) {
    return { errors: [{ path: '', message: `The gradeable JSON must be at most ${MAX_DOCUMENT_BYTES} bytes.` }] };
  }
  // A grader's download lacks what grading needs: refused alone, before anything else is reported.
  if (input[REDACTED_FIELD] === true) return { errors: [{ path: REDACTED_FIELD, message: REDACTED_DOCUMENT }] };
  // The reference's first check, alone: without these nothing else is worth reporting.
  const missing = ['id', 'title', 'type'].filter((key) => input[key] === undefined || input[key] === '');
  if (missing.length > 0) return { errors: missing.map((path) => ({ path, message: REQUIRES_ID_TITLE_TYPE })) };

  const schemas = gradeableSchemas({ ...context, taGrading: input.ta_grading === true, gradeInquiries: input.grade_inquiries === true });
  const result = (input.type === 'Electronic File' ? schemas.electronic : schemas.graded).safeParse(input, { error: problemMessage });
  if (result.success) return { document: result.data, errors: [] };
  // zod measures a value of the wrong type that has a length (a list given for a text): that is
  // no further problem of the field.
  const mistyped = new Set(result.error.issues.filter((issue) => issue.code === 'invalid_type').map((issue) => pathName(issue.path)));
  const measured = (code: string) => code === 'too_big' || code === 'too_small';
  return {
    errors: result.error.issues
      .filter((issue) => !(measured(issue.code) && mistyped.has(pathName(issue.path))))
      .map((issue) => ({ path: pathName(issue.path), message: issue.message })),
  };
}
