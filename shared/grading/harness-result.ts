import type { HarnessResult } from './harness/protocol.ts';

/**
 * The harness's answer, checked before it is trusted with a grade: a sandbox's output arrives over
 * the network (in AWS, an object the build put), so anything not shaped like a result is a fault.
 */
export function parseHarnessResult(text: string): HarnessResult {
  const value = JSON.parse(text) as unknown;
  const cases = (value as { testCases?: unknown })?.testCases;
  if (!Array.isArray(cases) || !cases.every(isOutcome)) throw new Error('The grading sandbox answered something other than a result');
  return value as HarnessResult;
}

function isOutcome(value: unknown): boolean {
  const outcome = value as Record<string, unknown> | null;
  return (
    typeof outcome === 'object' &&
    outcome !== null &&
    typeof outcome.name === 'string' &&
    typeof outcome.passed === 'boolean' &&
    typeof outcome.message === 'string' &&
    typeof outcome.timedOut === 'boolean' &&
    (outcome.exitCode === null || typeof outcome.exitCode === 'number') &&
    Array.isArray(outcome.autochecks)
  );
}
