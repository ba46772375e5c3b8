/**
 * The similarity reports' limits and choices, light enough for the route definitions (and so the
 * OpenAPI function) and the route handlers to import without the parsers or the data layer.
 */

/** The languages a run may name: the parsers' (shared/similarity/tokens.ts), and text. */
export const SIMILARITY_LANGUAGES = ['python', 'java', 'c', 'cpp', 'javascript', 'text'] as const;

/**
 * The pairs a run keeps, most similar first. A reviewer reads from the top and stops where the
 * pairs are plainly unrelated; the copies of a class are a handful, so a hundred leaves a wide
 * margin while each kept pair (with its fragments, a few kilobytes) stays one small item.
 */
export const KEPT_PAIRS = 100;

/** The starter code a run takes: files, and characters in all (a DynamoDB item holds 400 KB). */
export const MAX_STARTER_FILES = 20;
export const MAX_STARTER_CHARACTERS = 200_000;

/** The gradeables a run may compare with at most. */
export const MAX_COMPARE_WITH = 5;

/** A page of pairs, unless the request names its size. */
export const PAIRS_PAGE = 50;

/** A page of a gradeable's runs, unless the request names its size. */
export const RUNS_PAGE = 20;

/** The lines a side of a fragment shows at most: a reviewer reads the passage, not a whole file. */
export const MAX_SHOWN_LINES = 400;

/** A file larger than this is not compared (generated data, not code a student wrote). */
export const MAX_COMPARED_FILE_BYTES = 1024 * 1024;

/**
 * The text of a repository version's compared files kept beside its fingerprints, at most: a
 * pair's passages are read from it (such a version has no stored files). A student's code is far
 * less; files past it are compared, and their passages answer no lines.
 */
export const MAX_KEPT_SOURCE_CHARACTERS = 8 * 1024 * 1024;

/** The versions a run lists as skipped, with why, at most (it counts them all). */
export const MAX_LISTED_SKIPPED = 100;

/** The text of a stored file, or undefined when it is not text (a NUL byte, or not UTF-8). Pure. */
export function textOf(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
