import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI can read. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const count = (state: 'passed' | 'failed' | 'skipped') =>
      testModules.reduce((sum, module) => sum + [...module.children.allTests(state)].length, 0);
    const failed = count('failed') + unhandledErrors.length + testModules.filter((m) => m.state() === 'failed' && [...m.children.allTests()].length === 0).length;
    process.stdout.write(`\nTests: ${count('passed')} passed, ${failed} failed, ${count('skipped')} skipped\n`);
  }
}
