import type { Autocheck, HarnessResult, TestCaseOutcome } from './protocol.ts';
import { MAX_DIFFERENCES, type DiffViewer } from './line-diff.ts';
import { verifiedBytes } from './result-signature.ts';

export { newResultKey } from './result-signature.ts';

/** The harness's answer is a few hundred KB at most; a larger one is refused unread. */
export const MAX_RESULT_BYTES = 32 * 1024 * 1024;

/** Why a result was not accepted: a sentence fragment, e.g. "it is not signed with this job's key". */
export class ResultRefused extends Error {}

const MESSAGE_TYPES = new Set(['success', 'failure', 'warning', 'information']);

/**
 * The harness's answer, checked before it is trusted with a grade, the same way for the local
 * sandbox and for a build in AWS (where it is an object anyone able to write to the bucket could
 * have replaced): within MAX_RESULT_BYTES, signed with the job's own key, well-formed JSON, and
 * naming exactly the job's test cases, in order. Answers a copy holding only the result's own
 * fields; throws ResultRefused saying what is wrong otherwise.
 */
export function acceptHarnessResult(signed: Uint8Array, testCases: readonly { readonly name: string }[], key: string): HarnessResult {
  if (signed.byteLength > MAX_RESULT_BYTES) throw new ResultRefused(`it is larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB`);
  const body = verifiedBytes(signed, key);
  if (!body) throw new ResultRefused("it is not signed with this job's key");
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ResultRefused('it is not JSON');
  }
  const cases = (value as { testCases?: unknown } | null)?.testCases;
  if (!Array.isArray(cases) || !cases.every(isOutcome)) throw new ResultRefused('it is not shaped like a result');
  if (cases.length !== testCases.length || cases.some((outcome, index) => outcome.name !== testCases[index]?.name))
    throw new ResultRefused("its test cases are not the job's (names, count and order)");
  return { testCases: cases.map(outcomeOnly) };
}

function isOutcome(value: unknown): value is TestCaseOutcome {
  const outcome = value as Record<string, unknown> | null;
  return (
    typeof outcome === 'object' &&
    outcome !== null &&
    typeof outcome.name === 'string' &&
    typeof outcome.passed === 'boolean' &&
    typeof outcome.message === 'string' &&
    typeof outcome.timedOut === 'boolean' &&
    (outcome.exitCode === null || Number.isInteger(outcome.exitCode)) &&
    Array.isArray(outcome.autochecks) &&
    outcome.autochecks.every(isAutocheck)
  );
}

function isAutocheck(value: unknown): value is Autocheck {
  const check = value as Record<string, unknown> | null;
  const text = (field: unknown) => field === null || typeof field === 'string';
  return (
    typeof check === 'object' &&
    check !== null &&
    typeof check.description === 'string' &&
    Array.isArray(check.messages) &&
    check.messages.every((message: { message?: unknown; type?: unknown } | null) => {
      return typeof message?.message === 'string' && MESSAGE_TYPES.has(message.type as string);
    }) &&
    (check.diff_viewer === null || isDiffViewer(check.diff_viewer)) &&
    text(check.expected) &&
    text(check.actual)
  );
}

function isDiffViewer(value: unknown): value is DiffViewer {
  const viewer = value as { differences?: unknown; truncated?: unknown } | null;
  const run = (side: unknown) => {
    const { start, count } = (side ?? {}) as { start?: unknown; count?: unknown };
    return Number.isSafeInteger(start) && (start as number) >= 1 && Number.isSafeInteger(count) && (count as number) >= 0;
  };
  return (
    typeof viewer === 'object' &&
    viewer !== null &&
    typeof viewer.truncated === 'boolean' &&
    Array.isArray(viewer.differences) &&
    viewer.differences.length <= MAX_DIFFERENCES &&
    viewer.differences.every(
      (difference: { expected?: unknown; actual?: unknown } | null) => run(difference?.expected) && run(difference?.actual),
    )
  );
}

const diffViewerOnly = (viewer: DiffViewer): DiffViewer => ({
  differences: viewer.differences.map(({ expected, actual }) => ({
    expected: { start: expected.start, count: expected.count },
    actual: { start: actual.start, count: actual.count },
  })),
  truncated: viewer.truncated,
});

const outcomeOnly = (outcome: TestCaseOutcome): TestCaseOutcome => ({
  name: outcome.name,
  passed: outcome.passed,
  message: outcome.message,
  timedOut: outcome.timedOut,
  exitCode: outcome.exitCode,
  autochecks: outcome.autochecks.map((check) => ({
    description: check.description,
    messages: check.messages.map((message) => ({ message: message.message, type: message.type })),
    diff_viewer: check.diff_viewer && diffViewerOnly(check.diff_viewer),
    expected: check.expected,
    actual: check.actual,
  })),
});
