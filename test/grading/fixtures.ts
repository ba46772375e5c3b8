import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { LimitSettings, TestCase } from '#shared/gradeables/gradeable.ts';
import { DEFAULT_BOUNDS, runTestCases } from '#shared/grading/worker/limits.ts';
import type { RunRequest } from '#shared/grading/runner-protocol.ts';
import type { Fixture } from '../support/git-server.ts';

/** The fixture repositories the grading tests serve. */
export const fixtures: Record<string, Fixture> = {
  pass: {
    'hello.sh': 'echo "Hello, World!"\n',
    'README.md': '# Homework 1\n',
    'part2/inner.sh': 'echo inner\n',
    escape: { link: '/etc' },
  },
  empty: {},
  fail: {
    'hello.sh': 'echo "Goodbye, World!"\nexit 1\n',
  },
  loop: {
    // $1 is a marker unique to the test, so leftover processes can be found with pgrep -f.
    'loop.sh': [
      'sh -c "while :; do sleep 1; done" "child-$1" &',
      'setsid sh -c "while :; do sleep 1; done" "escaped-$1" &',
      'while :; do sleep 1; done',
      '',
    ].join('\n'),
  },
  flood: {
    'flood.sh': 'yes "0123456789 0123456789 0123456789" | head -c 50000000\necho done\n',
  },
  verbose: {
    // 6,000 characters of output where a word was expected: more than a check shows (4,096).
    'verbose.sh': "head -c 6000 /dev/zero | tr '\\0' x\n",
  },
  snoop: {
    'snoop.sh': [
      'echo "uid=$(id -u)"',
      'cat /proc/$PPID/environ',
      'echo; echo "--- env"',
      'env',
      'echo "--- 1"',
      'cat /proc/1/environ',
      'for pid in "$@"; do echo "--- $pid"; cat /proc/$pid/environ; done',
      'echo; echo "--- end"',
      '',
    ].join('\n'),
  },
};

export const testCase = (overrides: Partial<TestCase> & Pick<TestCase, 'command'>): TestCase => ({
  name: overrides.name ?? overrides.command,
  details: '',
  points_available: 1,
  is_extra_credit: false,
  is_hidden: false,
  timeout_seconds: 5,
  expect: { exit_code: 0 },
  ...overrides,
});

/** A run of `testCases` (with the default limits, or the gradeable-wide `limits`) on the repository at `url`. */
export const request = (url: string, testCases: TestCase[], overrides: Partial<RunRequest> = {}, limits?: LimitSettings): RunRequest => ({
  jobId: `job-${randomUUID()}`,
  repository: { url, subdirectory: '' },
  testCases: runTestCases(testCases, limits, DEFAULT_BOUNDS),
  limits: { maxRepositoryBytes: 10 * 1024 * 1024, maxRepositoryFiles: 100, maxOutputBytes: 64 * 1024 },
  allowedHosts: [],
  sandbox: 'bwrap',
  ...overrides,
});

/** Processes on the host whose command line contains `marker`. */
export async function processesWith(marker: string): Promise<string[]> {
  try {
    return (await promisify(execFile)('pgrep', ['-af', marker])).stdout.trim().split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits with 1 when nothing matches
  }
}
