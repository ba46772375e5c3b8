import { join } from 'node:path';
import { runAdminCommand, UsageError } from './admin/commands.ts';
import { JAVA_MISSING } from './local/dynamodb-local.ts';
import { announcedEndpoint, dataDirectory, startLocalEnvironment, type LocalEnvironment } from './local/environment.ts';
import { useLocalTables } from './local/tables.ts';

/** A progress bar on a terminal; nothing when the output is redirected. */
function progressBar(done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const width = 30;
  const filled = Math.round((done / Math.max(total, 1)) * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

/**
 * The admin command line. Locally it uses the DynamoDB Local of a running `npm start`, or starts
 * one on the data folder for the length of the command; with --aws it uses the deployed tables.
 */
const argv = process.argv.slice(2);
let environment: LocalEnvironment | undefined;
try {
  if (!argv.includes('--aws') && !argv.includes('--help') && argv.length > 0) {
    const running = await announcedEndpoint();
    if (running) {
      process.env.DYNAMODB_ENDPOINT = running;
      process.env.SIGNING_SECRET_FILE ||= join(dataDirectory(), 'signing-secret');
      process.env.LTI_KEY_FILE ||= join(dataDirectory(), 'lti-key.json');
      process.env.RECORD_KEYS_FILE ||= join(dataDirectory(), 'record-keys');
      useLocalTables();
    } else {
      environment = await startLocalEnvironment({ announce: false });
    }
  }
  await runAdminCommand(argv, (line) => console.log(line), progressBar);
} catch (error) {
  const known = error instanceof UsageError || (error as Error).message === JAVA_MISSING;
  console.error(known ? (error as Error).message : `Failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await environment?.stop();
}
