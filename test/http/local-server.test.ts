import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JAVA_MISSING, startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';

/** Starts `npm start`'s entry point and resolves with its API URL once it is listening. */
function startServer(dataDir: string) {
  // The test run's own DynamoDB Local and tables are not the server's business.
  const { DYNAMODB_ENDPOINT, SIGNING_SECRET_FILE, TABLE_PREFIX, ...environment } = process.env;
  const child = spawn(process.execPath, ['infra/local/start.ts'], {
    env: { ...environment, DATA_DIR: dataDir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API on (\S+)/.exec(output);
      if (match && output.includes('Try:')) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', () => reject(new Error(`the server exited:\n${output}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return { url, stop, output: () => output };
}

const dynamoDbProcesses = (dataDir: string) => {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dataDir}`])
      .toString()
      .trim()
      .split('\n').length;
  } catch {
    return 0;
  }
};

async function login(url: string, userId: string) {
  const response = await fetch(`${url}/token`, { method: 'POST', body: new URLSearchParams({ user_id: userId, password: userId }) });
  return ((await response.json()) as { data: { token: string } }).data.token;
}

describe('npm start', () => {
  it('seeds an empty data folder, keeps data across restarts and stops DynamoDB Local with it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'course-api-start-'));
    try {
      const first = startServer(dataDir);
      const url = await first.url;
      expect(first.output()).toContain('demo dataset seeded');
      expect(first.output()).toMatch(/admin \(superuser\), instructor \(faculty\), ta \(user\), mentor \(user\), student \(user\)/);
      const token = await login(url, 'instructor');
      expect(await first.stop()).toBe(0);
      expect(dynamoDbProcesses(dataDir)).toBe(0);

      const second = startServer(dataDir);
      const secondUrl = await second.url;
      expect(second.output()).not.toContain('seeded');
      const me = await fetch(`${secondUrl}/me`, { headers: { Authorization: token } });
      expect(await me.json()).toEqual({
        status: 'success',
        data: { user_id: 'instructor', user_given_name: 'Ines', user_family_name: 'Instructor' },
      });
      expect(await second.stop()).toBe(0);
      expect(dynamoDbProcesses(dataDir)).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('explains how to install Java when it is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(startDynamoDbLocal()).rejects.toThrow(JAVA_MISSING);
    } finally {
      process.env.PATH = path;
    }
  });
});
