import { describe, expect, it } from 'vitest';
import { buildTimeoutMinutes, urlSeconds } from '#shared/grading/builds/codebuild.ts';
import { acceptHarnessResult, MAX_RESULT_BYTES, newResultKey, ResultRefused } from '#shared/grading/harness/result.ts';
import { signResult } from '#shared/grading/harness/result-signature.ts';
import type { TestCaseOutcome } from '#shared/grading/harness/protocol.ts';

const job = [{ name: 'Compiles' }, { name: 'Greets' }];

const outcome = (name: string, passed = true): TestCaseOutcome => ({
  name,
  passed,
  message: passed ? 'Passed' : 'Wrong output',
  timedOut: false,
  exitCode: 0,
  autochecks: [
    {
      description: 'Standard output',
      messages: [{ message: passed ? 'Passed' : 'Wrong output', type: passed ? 'success' : 'failure' }],
      diff_viewer: null,
      expected: 'Hello\n',
      actual: passed ? null : 'Bye\n',
    },
  ],
});

const result = (cases: unknown[] = job.map((testCase) => outcome(testCase.name))) => `${JSON.stringify({ testCases: cases })}\n`;
const bytes = (text: string) => Buffer.from(text, 'utf8');

/** The reason acceptHarnessResult gives for refusing `signed`. */
function refusal(signed: Uint8Array, key: string, testCases: readonly { name: string }[] = job): string {
  try {
    acceptHarnessResult(signed, testCases, key);
  } catch (error) {
    expect(error).toBeInstanceOf(ResultRefused);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('a harness result', () => {
  const key = newResultKey();

  it('is accepted when signed with the job’s key and naming its test cases in order; only its own fields are kept', () => {
    const cases = [{ ...outcome('Compiles'), extra: 'dropped' }, outcome('Greets', false)];
    const accepted = acceptHarnessResult(bytes(signResult(result(cases), key)), job, key);
    expect(accepted).toEqual({ testCases: [outcome('Compiles'), outcome('Greets', false)] });
    expect(JSON.stringify(accepted)).not.toContain('dropped');
  });

  it('is refused unsigned, signed with another key, or changed after signing', () => {
    expect(refusal(bytes(result()), key)).toBe("it is not signed with this job's key");
    expect(refusal(bytes(signResult(result(), newResultKey())), key)).toBe("it is not signed with this job's key");
    const signed = signResult(result([outcome('Compiles', false), outcome('Greets', false)]), key);
    const forged = signed.replace(/"passed":false/g, '"passed":true ');
    expect(forged).not.toBe(signed);
    expect(refusal(bytes(forged), key)).toBe("it is not signed with this job's key");
    expect(refusal(bytes(''), key)).toBe("it is not signed with this job's key");
  });

  it('keeps the lines in which an output differs, and is refused when they are not line runs or too many', () => {
    const differs = (diff_viewer: unknown) => {
      const failed = outcome('Greets', false);
      return [outcome('Compiles'), { ...failed, autochecks: [{ ...failed.autochecks[0], diff_viewer }] }];
    };
    const shown = { differences: [{ expected: { start: 1, count: 1 }, actual: { start: 1, count: 0 } }], truncated: false };
    const accepted = acceptHarnessResult(bytes(signResult(result(differs({ ...shown, extra: 1 })), key)), job, key);
    expect(accepted.testCases[1]!.autochecks[0]!.diff_viewer).toEqual(shown);
    const run = { expected: { start: 1, count: 1 }, actual: { start: 1, count: 1 } };
    for (const forged of [
      { differences: [{ expected: { start: 0, count: 1 }, actual: { start: 1, count: 1 } }], truncated: false },
      { differences: [{ expected: { start: 1, count: -1 }, actual: { start: 1, count: 1 } }], truncated: false },
      { differences: [{ expected: { start: 1, count: 1 } }], truncated: false },
      { differences: Array.from({ length: 101 }, () => run), truncated: true },
      { differences: [run] },
      'lines 1-2',
    ]) {
      expect(refusal(bytes(signResult(result(differs(forged)), key)), key), JSON.stringify(forged)).toBe('it is not shaped like a result');
    }
  });

  it('is refused past the size bound, unread', () => {
    const huge = Buffer.alloc(MAX_RESULT_BYTES + 1, 0x20);
    expect(refusal(huge, key)).toBe('it is larger than 32 MiB');
  });

  it('is refused when not JSON, or not shaped like a result', () => {
    expect(refusal(bytes(signResult('{"testCases": [', key)), key)).toBe('it is not JSON');
    const { passed: _, ...withoutPassed } = outcome('Greets');
    const malformed: unknown[][] = [
      [outcome('Compiles'), withoutPassed],
      [outcome('Compiles'), { ...outcome('Greets'), exitCode: '0' }],
      [outcome('Compiles'), { ...outcome('Greets'), autochecks: [{ description: 'x', messages: [{ message: 'x', type: 'boast' }] }] }],
      [outcome('Compiles'), null],
    ];
    for (const cases of malformed) expect(refusal(bytes(signResult(result(cases), key)), key)).toBe('it is not shaped like a result');
    expect(refusal(bytes(signResult('{"outcomes": []}\n', key)), key)).toBe('it is not shaped like a result');
  });

  it("is refused unless it names exactly the job's test cases: names, count and order", () => {
    const wrong = "its test cases are not the job's (names, count and order)";
    expect(refusal(bytes(signResult(result([outcome('Compiles'), outcome('Greets!')]), key)), key)).toBe(wrong);
    expect(refusal(bytes(signResult(result([outcome('Compiles')]), key)), key)).toBe(wrong);
    expect(refusal(bytes(signResult(result([...job, { name: 'Bonus' }].map((c) => outcome(c.name))), key)), key)).toBe(wrong);
    expect(refusal(bytes(signResult(result([outcome('Greets'), outcome('Compiles')]), key)), key)).toBe(wrong);
  });

  it('keys are fresh for each job', () => {
    const keys = new Set(Array.from({ length: 50 }, () => newResultKey()));
    expect(keys.size).toBe(50);
    for (const made of keys) expect(Buffer.from(made, 'base64url')).toHaveLength(32);
  });
});

describe("a grading build's presigned URLs", () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it("expire within the build's own time limit, not an hour", () => {
    const timeout = buildTimeoutMinutes([{ timeout_seconds: 10 }, { timeout_seconds: 20 }]);
    expect(timeout).toBe(6);
    expect(urlSeconds(timeout, now + 13 * 60_000, now)).toBe(6 * 60);
  });

  it('expire when the worker stops waiting, if that comes first', () => {
    expect(urlSeconds(20, now + 90_500, now)).toBe(90);
    expect(urlSeconds(20, now - 5_000, now)).toBe(1);
  });
});
