import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/per-file-tables.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true', DYNAMODB_REQUEST_TIMEOUT_MS: '30000' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
