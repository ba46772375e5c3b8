// Imported first by bench/run.ts, before any module creates the logger: the bench's stdout is the table.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// The bench measures the submission path, not its limit: one student submits far more than 10 times a minute here.
process.env.SUBMISSIONS_PER_MINUTE ??= '1000000';
process.env.MAX_QUEUED_JOBS_PER_STUDENT ??= '1000000';
// DynamoDB Local on a loaded machine: as the tests give it (vitest.config.ts), the API server's child process included.
process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '30000';
