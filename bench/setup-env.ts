// Imported first by bench/run.ts, before any module creates the logger: the bench's stdout is the table.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
