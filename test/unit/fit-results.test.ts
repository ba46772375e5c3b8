import { describe, expect, it } from 'vitest';
import type { GradingResults } from '#shared/data/submissions.ts';
import { fitResults, MAX_RESULTS_BYTES } from '#shared/grading/worker/fit-results.ts';

const check = (actual: string) => ({
  description: 'Standard output',
  messages: [{ message: 'The output differs', type: 'failure' }],
  diff_viewer: null,
  expected: 'quiet\n',
  actual,
});
const results = (cases: number, printed: string): GradingResults => ({
  version: 3,
  testCases: Array.from({ length: cases }, (_, index) => ({
    name: `Case ${index}`,
    details: 'Prints nothing',
    is_extra_credit: false,
    points_available: 1,
    has_extra_results: false,
    points_received: 0,
    testcase_message: 'Failed',
    autochecks: [check(printed)],
    hidden: index % 2 === 1,
  })),
});
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('fitting grading results in a DynamoDB item', () => {
  it('leaves results that fit as they are', () => {
    const small = results(3, 'x'.repeat(4096));
    expect(fitResults(small)).toBe(small);
  });

  it('cuts every free text to the longest length that fits, keeping everything else', () => {
    const large = results(100, 'x'.repeat(4096)); // about 420 KB: more than an item holds
    expect(bytes(large)).toBeGreaterThan(400 * 1024);
    const fitted = fitResults(large);
    expect(bytes(fitted)).toBeLessThanOrEqual(MAX_RESULTS_BYTES);
    // Not cut further than needed: one character more would not fit.
    const actual = (fitted.testCases[0]!.autochecks[0] as { actual: string }).actual;
    expect(actual).toMatch(/^x+\n\[… cut\]$/);
    const shown = actual.length - '\n[… cut]'.length;
    expect(bytes(fitResults(large, bytes(fitted) + 100 * 2))).toBeGreaterThan(bytes(fitted));
    expect(shown).toBeGreaterThan(1500);
    // Names, points, flags and short texts are untouched.
    expect(fitted.testCases.map(({ autochecks, ...rest }) => rest)).toEqual(large.testCases.map(({ autochecks, ...rest }) => rest));
    expect(fitted.testCases[0]!.autochecks[0]).toMatchObject({
      expected: 'quiet\n',
      messages: [{ message: 'The output differs', type: 'failure' }],
    });
    expect(fitted.version).toBe(3);
  });

  it("keeps a check's differences that still start within its cut outputs, saying that others were left out", () => {
    const printed = Array.from({ length: 2000 }, (_, line) => `line ${line}\n`).join('');
    const large = results(100, printed);
    const differences = [
      { expected: { start: 1, count: 1 }, actual: { start: 1, count: 1 } },
      { expected: { start: 2, count: 0 }, actual: { start: 1900, count: 1 } },
    ];
    for (const test of large.testCases) (test.autochecks[0] as { diff_viewer: unknown }).diff_viewer = { differences, truncated: false };
    const fitted = fitResults(large).testCases[0]!.autochecks[0] as { actual: string; diff_viewer: unknown };
    expect(fitted.actual.split('\n').length).toBeLessThan(1900);
    expect(fitted.diff_viewer).toEqual({ differences: [differences[0]], truncated: true });
    const small = results(1, printed);
    (small.testCases[0]!.autochecks[0] as { diff_viewer: unknown }).diff_viewer = { differences, truncated: false };
    expect(fitResults(small)).toBe(small);
  });

  it('keeps what the caller added to the results (the visible points)', () => {
    const large = { ...results(100, 'y'.repeat(4096)), visiblePoints: 7 };
    expect(fitResults(large).visiblePoints).toBe(7);
  });

  it('cuts instructors’ long details too when they alone are too much', () => {
    const large = results(100, '');
    for (const test of large.testCases) (test as { details: string }).details = 'd'.repeat(2000);
    const fitted = fitResults(large, 100_000);
    expect(bytes(fitted)).toBeLessThanOrEqual(100_000);
    expect(fitted.testCases[5]!.details).toMatch(/^d+\n\[… cut\]$/);
  });
});
