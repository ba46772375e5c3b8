import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI can read. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const count = (module: TestModule, state: 'passed' | 'failed' | 'skipped') => [...module.children.allTests(state)].length;
    const total = (state: 'passed' | 'failed' | 'skipped') => testModules.reduce((sum, module) => sum + count(module, state), 0);
    // A file that failed outside its tests (a hook, an import) counts as one failure.
    const brokenFiles = testModules.filter((module) => module.state() === 'failed' && count(module, 'failed') === 0).length;
    const failed = total('failed') + brokenFiles + unhandledErrors.length;
    process.stdout.write(`\nTests: ${total('passed')} passed, ${failed} failed, ${total('skipped')} skipped\n`);
  }
}
