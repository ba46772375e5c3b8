import type { GradingResults, TestCaseResult } from '#shared/data/submissions.ts';

/**
 * The most a version's results may take as JSON. They are kept twice, in their own item and as
 * the active version's on the submission item beside up to MAX_VERSIONS versions, and a DynamoDB
 * item holds at most 400 KB: results that did not fit could not be written, and grading failed.
 */
export const MAX_RESULTS_BYTES = 192 * 1024;

const CUT = '\n[… cut]';

/**
 * The results as they are when they fit in `maxBytes`; else with every free text (a test case's
 * details and message, each check's messages and its expected and actual output) cut to the
 * longest length at which they fit, so that a program printing a lot in every test case still
 * gets its grade, each test case showing the start of what went wrong.
 */
export function fitResults<T extends GradingResults>(results: T, maxBytes = MAX_RESULTS_BYTES): T {
  if (jsonBytes(results) <= maxBytes) return results;
  let fits = 0;
  let tooLong = longestText(results) + 1;
  while (tooLong - fits > 1) {
    const cap = Math.floor((fits + tooLong) / 2);
    if (jsonBytes(withTextsCut(results, cap)) <= maxBytes) fits = cap;
    else tooLong = cap;
  }
  return withTextsCut(results, fits);
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

const cut = (text: string, cap: number) => (text.length > cap ? `${text.slice(0, cap)}${CUT}` : text);

type Check = Record<string, unknown> & { messages?: unknown; expected?: unknown; actual?: unknown; diff_viewer?: unknown };

interface ShownDifferences {
  readonly differences: readonly { readonly expected: { readonly start: number }; readonly actual: { readonly start: number } }[];
  readonly truncated: boolean;
}

const lineCount = (text: unknown) => (typeof text === 'string' ? text.split('\n').length : 0);

/** A check's differences that still start within its outputs once they are cut, marked truncated when any is left out. */
function differencesShown(viewer: unknown, expected: unknown, actual: unknown): unknown {
  if (typeof viewer !== 'object' || viewer === null) return viewer;
  const { differences, truncated } = viewer as ShownDifferences;
  const shown = differences.filter(
    (difference) => difference.expected.start <= lineCount(expected) && difference.actual.start <= lineCount(actual),
  );
  return { differences: shown, truncated: truncated || shown.length < differences.length };
}

/** The results with `edit` applied to every free text fitResults may cut, and nothing else. */
function mapTexts<T extends GradingResults>(results: T, edit: (text: string) => string): T {
  const editCheck = (check: unknown): unknown => {
    if (typeof check !== 'object' || check === null) return check;
    const { messages, expected, actual, diff_viewer } = check as Check;
    const cutExpected = typeof expected === 'string' ? edit(expected) : expected;
    const cutActual = typeof actual === 'string' ? edit(actual) : actual;
    return {
      ...check,
      ...(Array.isArray(messages)
        ? {
            messages: messages.map((entry: unknown) =>
              typeof entry === 'object' && entry !== null && typeof (entry as { message?: unknown }).message === 'string'
                ? { ...entry, message: edit((entry as { message: string }).message) }
                : entry,
            ),
          }
        : {}),
      ...(typeof expected === 'string' ? { expected: cutExpected } : {}),
      ...(typeof actual === 'string' ? { actual: cutActual } : {}),
      ...(diff_viewer !== undefined && (cutExpected !== expected || cutActual !== actual)
        ? { diff_viewer: differencesShown(diff_viewer, cutExpected, cutActual) }
        : {}),
    };
  };
  const testCases = results.testCases.map((test): TestCaseResult => ({
    ...test,
    details: edit(test.details),
    testcase_message: edit(test.testcase_message),
    autochecks: test.autochecks.map(editCheck),
  }));
  return { ...results, testCases };
}

const withTextsCut = <T extends GradingResults>(results: T, cap: number): T => mapTexts(results, (text) => cut(text, cap));

/** The length of the longest text fitResults may cut. */
function longestText(results: GradingResults): number {
  let longest = 0;
  mapTexts(results, (text) => {
    longest = Math.max(longest, text.length);
    return text;
  });
  return longest;
}
