import type { TestCase } from '#shared/gradeables/gradeable.ts';
import type { GradingResults, TestCaseResult } from '#shared/data/submissions.ts';
import type { RunResult } from '../runner-protocol.ts';

/**
 * The `values` test cases of one graded version: a test case earns its points when it passed.
 * A checkout failure is a result too: a "Checkout" entry with the message, every test case at 0.
 */
export function scoreRun(
  version: number,
  testCases: readonly TestCase[],
  run: Exclude<RunResult, { status: 'sandbox-unavailable' | 'sandbox-failed' | 'commit-unreachable' }>,
): GradingResults & { visiblePoints: number; hiddenPoints: number } {
  const entry = (test: TestCase, passed: boolean, message: string, autochecks: readonly unknown[]): TestCaseResult => ({
    name: test.name,
    details: test.details,
    is_extra_credit: test.is_extra_credit,
    points_available: test.points_available,
    has_extra_results: false,
    points_received: passed ? test.points_available : 0,
    testcase_message: message,
    autochecks,
    hidden: test.is_hidden,
  });
  const results: TestCaseResult[] =
    run.status === 'checkout-failed'
      ? [
          {
            name: 'Checkout',
            details: 'Fetching the submission from its repository',
            is_extra_credit: false,
            points_available: 0,
            has_extra_results: false,
            points_received: 0,
            testcase_message: run.message,
            autochecks: [],
            hidden: false,
          },
          ...testCases.map((test) => entry(test, false, 'Not run: the submission could not be checked out.', [])),
        ]
      : testCases.map((test) => {
          const outcome = run.testCases.find((candidate) => candidate.name === test.name);
          return entry(test, outcome?.passed ?? false, outcome?.message ?? 'Not run.', outcome?.autochecks ?? []);
        });
  return {
    version,
    testCases: results,
    visiblePoints: results.filter((test) => !test.hidden).reduce((sum, test) => sum + test.points_received, 0),
    hiddenPoints: results.filter((test) => test.hidden).reduce((sum, test) => sum + test.points_received, 0),
  };
}

/** What a student sees when grading failed for good. */
export function failedRun(version: number, message: string): GradingResults {
  return {
    version,
    testCases: [
      {
        name: 'Grading',
        details: '',
        is_extra_credit: false,
        points_available: 0,
        has_extra_results: false,
        points_received: 0,
        testcase_message: message,
        autochecks: [],
        hidden: false,
      },
    ],
  };
}
