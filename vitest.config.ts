import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests under test/unit that still need the shared DynamoDB Local or the run's signing-secret file
 * (set up by test/support/global-setup.ts and per-file-tables.ts): they run with the integration tests.
 */
const unitTestsNeedingServices = [
  // Reads a local function's tables (USERS_TABLE, COURSES_TABLE) and calls DynamoDB through its grants.
  'test/unit/function-access.test.ts',
  // Signs and verifies tokens with the run's signing-secret file (SIGNING_SECRET_FILE).
  'test/unit/jwt.test.ts',
];

/**
 * Two projects: `unit` (pure rules: no DynamoDB Local, no tables, no secret file; seconds) and
 * `integration` (everything else, each file with tables of its own in one DynamoDB Local for the
 * run). `npm test` runs both; `npm run test:unit` only the first.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true', DYNAMODB_REQUEST_TIMEOUT_MS: '30000' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unitTestsNeedingServices],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/!(unit)/**/*.test.ts', ...unitTestsNeedingServices],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/per-file-tables.ts'],
        },
      },
    ],
  },
});
