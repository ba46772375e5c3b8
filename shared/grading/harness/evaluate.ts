import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Autocheck, HarnessTestCase, TestCaseOutcome } from './protocol.ts';
import type { CaseRun } from './run-case.ts';
import { lineDifferences } from './line-diff.ts';
import { stopReason } from './verdict.ts';

/** Expected and actual texts in autochecks are cut to this many characters. */
export const MAX_SHOWN_CHARS = 4096;

const cut = (text: string): string => (text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}\n[… cut]` : text);
const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** `compared.lines`: the outputs are compared line by line, so a failure shows in which lines they differ. */
function check(description: string, failure: string | null, compared?: { expected: string; actual: string; lines?: true }): Autocheck {
  const expected = failure && compared ? cut(compared.expected) : null;
  const actual = failure && compared ? cut(compared.actual) : null;
  return {
    description,
    messages: [{ message: failure ?? 'Passed', type: failure ? 'failure' : 'success' }],
    diff_viewer: expected !== null && actual !== null && compared?.lines ? lineDifferences(expected, actual) : null,
    expected,
    actual,
  };
}

function information(description: string, message: string, type: 'warning' | 'information'): Autocheck {
  return { description, messages: [{ message, type }], diff_viewer: null, expected: null, actual: null };
}

/** Whether `path` (relative to `folder`) names something inside it, after following links. */
export async function existsInside(folder: string, path: string): Promise<'yes' | 'no' | 'outside'> {
  if (path === '' || isAbsolute(path) || path.split(/[\\/]/).includes('..')) return 'outside';
  const candidate = resolve(folder, path);
  const rel = relative(folder, candidate);
  if (rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return 'outside';
  if (!(await lstat(candidate).catch(() => undefined))) return 'no';
  const real = await realpath(candidate).catch(() => undefined);
  if (real === undefined) return 'no'; // a dangling link
  const realRel = relative(await realpath(folder), real);
  if (realRel.startsWith(`..${sep}`) || realRel === '..' || isAbsolute(realRel)) return 'outside';
  return 'yes';
}

/**
 * The outcome of one test case: stopped short (a limit, the time limit, the output cap), or
 * every expectation checked against what the command did in `folder`. Runs only after every
 * process of the test case is gone, so nothing can change `folder` while it is looked at.
 */
export async function evaluate(testCase: HarnessTestCase, run: CaseRun, folder: string, maxOutputBytes: number): Promise<TestCaseOutcome> {
  const base = { name: testCase.name, timedOut: run.timedOut, exitCode: run.exitCode };
  const stdout = run.stdout.kept.toString('utf8');

  const stopped = stopReason(run, testCase.limits, testCase.timeout_seconds, maxOutputBytes);
  if (stopped) return { ...base, passed: false, message: stopped, autochecks: [check('Command', stopped)] };

  const autochecks: Autocheck[] = [];
  const expect = testCase.expect;
  if (expect.exit_code !== undefined) {
    const failure =
      run.exitCode === expect.exit_code
        ? null
        : run.exitCode === null
          ? `Killed by signal ${run.signal ?? 'unknown'} (expected exit code ${expect.exit_code})`
          : `Exited with code ${run.exitCode} (expected ${expect.exit_code})`;
    autochecks.push(
      check('Exit code', failure, {
        expected: String(expect.exit_code),
        actual: run.exitCode === null ? `signal ${run.signal}` : String(run.exitCode),
      }),
    );
  }
  if (expect.stdout !== undefined) {
    const failure = stdout === expect.stdout ? null : 'Wrong output';
    autochecks.push(check('Standard output', failure, { expected: expect.stdout, actual: stdout, lines: true }));
  }
  if (expect.stdout_contains !== undefined) {
    const failure = stdout.includes(expect.stdout_contains) ? null : `Output does not contain ${quote(expect.stdout_contains)}`;
    autochecks.push(check('Standard output contains', failure, { expected: expect.stdout_contains, actual: stdout }));
  }
  for (const file of expect.files_exist ?? []) {
    const found = await existsInside(folder, file);
    const failure =
      found === 'yes' ? null : found === 'outside' ? `Refused file path ${file}: it leaves the submission folder` : `Missing file ${file}`;
    autochecks.push(check(`File ${file} exists`, failure));
  }
  if (run.stdout.truncated) {
    autochecks.push(
      information('Standard output', `Only the first ${run.stdout.kept.length} bytes of ${run.stdout.total} were kept`, 'warning'),
    );
  }
  if (run.stderrStream.total > 0) {
    const text = run.stderrStream.kept.toString('utf8');
    autochecks.push(information('Standard error', cut(text + (run.stderrStream.truncated ? '\n[… cut]' : '')), 'information'));
  }

  const failures = autochecks.flatMap((autocheck) => autocheck.messages.filter((message) => message.type === 'failure'));
  const passed = failures.length === 0;
  return { ...base, passed, message: failures[0]?.message ?? 'Passed', autochecks };
}
