import { execFileSync, spawn } from 'node:child_process';
import { expect } from 'vitest';
import { checkedFetch } from './http.ts';

// `npm start` in a process of its own, for the tests that kill it, or its DynamoDB Local.

export interface StartedServer {
  /** The API's URL, once it is listening; rejects if the server exits first. */
  readonly url: Promise<string>;
  /** The server's exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** The server process's id (its process group's too). */
  readonly pid: number;
  /** What it printed so far, standard output and error together. */
  output(): string;
  /** SIGKILL to the whole group (the API, DynamoDB Local, the sandboxes): nothing of it gets to clean up. */
  killGroup(): Promise<void>;
  /** SIGTERM, as Ctrl-C would; resolves once it exited. */
  stop(): Promise<void>;
}

const started: StartedServer[] = [];

/** `npm start`'s entry point on `dataDir` in a process group of its own, so that a test can kill all of it at once. */
export function startServer(dataDir: string, settings: Record<string, string> = {}): StartedServer {
  // The test run's own DynamoDB Local and tables are not the server's business.
  const { DYNAMODB_ENDPOINT, SIGNING_SECRET_FILE, RECORD_KEYS_FILE, TABLE_PREFIX, ...environment } = process.env;
  const child = spawn(process.execPath, ['infra/local/start.ts'], {
    env: { ...environment, DATA_DIR: dataDir, PORT: '0', ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API on (\S+)/.exec(output);
      if (match && output.includes('Try:')) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`the server exited:\n${output}`)));
  });
  // A test that never asks for the URL must not fail for a server that exits.
  url.catch(() => undefined);
  const server: StartedServer = {
    url,
    exited,
    pid: child.pid!,
    output: () => output,
    killGroup: async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
      await exited;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
  started.push(server);
  return server;
}

/** Kills whatever a failed test left running of the servers it started (their groups are detached from the test's). */
export async function killStartedServers(): Promise<void> {
  for (const server of started.splice(0)) await server.killGroup();
}

/** The process ids of the DynamoDB Local serving `dataDir`, whichever server started it. */
export function dynamoDbLocalServing(dataDir: string): number[] {
  return processIds(['-f', `DynamoDBLocal.jar.*${dataDir}`]);
}

/** The process ids of the DynamoDB Local that the server `pid` started (its child, never another server's). */
export function dynamoDbLocalOf(pid: number): number[] {
  return processIds(['-P', String(pid), '-f', 'DynamoDBLocal.jar']);
}

function processIds(pgrepArguments: string[]): number[] {
  try {
    return execFileSync('pgrep', pgrepArguments).toString().trim().split('\n').map(Number);
  } catch {
    return [];
  }
}

/** Checks every quarter of a second until `check` finds something (at most `tries` times), then says what it waited for and what the server printed. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, output: () => string, tries = 600): Promise<T> {
  for (let attempt = 0; attempt < tries; attempt++) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`Gave up waiting until ${what}:\n${output().slice(-3000)}`);
}

export interface Envelope {
  status: 'success' | 'fail' | 'error';
  data?: unknown;
  message?: string;
  code?: string;
}

/** JSON requests to the server at `url`, as `token`'s holder if given; every answer is checked against its route's contract. */
export function client(url: string, token?: string) {
  const headers = { ...(token ? { Authorization: token } : {}), 'Content-Type': 'application/json' };
  return {
    get: async (path: string) => (await (await checkedFetch(`${url}${path}`, { headers })).json()) as Envelope,
    post: async (path: string, body: unknown) =>
      (await (await checkedFetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as Envelope,
  };
}

/** A demo user's token (their password is their user id). */
export async function login(url: string, userId: string): Promise<string> {
  const answer = await client(url).post('/token', { user_id: userId, password: userId });
  expect(answer.status, JSON.stringify(answer)).toBe('success');
  return (answer.data as { token: string }).token;
}
