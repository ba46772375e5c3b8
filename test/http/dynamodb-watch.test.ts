import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { selfHostedGradeableJson } from '../support/gradeables.ts';
import { client, dynamoDbLocalOf, dynamoDbLocalServing, killStartedServers, login, startServer, until } from '../support/npm-start.ts';

// `npm start` watches the DynamoDB Local it started: these tests kill that Java process (found
// among the server's own children), or the server itself, and see what the API and its clients get.

const dataDirs: string[] = [];
async function dataFolder(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'course-api-watch-'));
  dataDirs.push(dataDir);
  return dataDir;
}

afterAll(async () => {
  await killStartedServers();
  for (const dataDir of dataDirs) {
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}-repositories`, { recursive: true, force: true });
  }
});

/** The one DynamoDB Local the server `pid` started. */
function onlyDynamoDbLocalOf(pid: number): number {
  const found = dynamoDbLocalOf(pid);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** An answer as the test tallies it: its status, and its code when it has one. */
const kind = (answer: { status: string; code?: string }) => (answer.code ? `${answer.status} ${answer.code}` : answer.status);

describe('npm start, its DynamoDB Local killed', () => {
  it('starts it again on the same port, answering RETRYABLE meanwhile, and stops with exit code 1 when it dies again within a minute', async () => {
    const dataDir = await dataFolder();
    const server = startServer(dataDir);
    const url = await server.url;
    const instructor = client(url, await login(url, 'instructor'));
    const document = selfHostedGradeableJson('written_before', `file://${dataDir}-repositories/hw_vcs/{$user_id}`);
    const uploaded = await instructor.post('/f26/sample/upload', document);
    expect(uploaded.status, JSON.stringify(uploaded)).toBe('success');
    // DynamoDB Local answers a TransactWriteItems shortly before it is on disk: its own process
    // killed within that moment loses it (measured: the last of 100 transactions lost in 2 of 5
    // kills straight after its answer, none of 6 a second later), which DynamoDB in AWS never does.
    // What this test asks of npm start is what a restart keeps of what DynamoDB Local holds.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const first = onlyDynamoDbLocalOf(server.pid);
    process.kill(first, 'SIGKILL');
    // While it is down and coming back: a read with a token, and a login.
    const answers = new Map<string, number>();
    const tally = (answer: { status: string; code?: string }) => {
      answers.set(kind(answer), (answers.get(kind(answer)) ?? 0) + 1);
      return answer.status === 'success';
    };
    await until(
      'both requests succeed again',
      async () => {
        const [me, token] = await Promise.all([
          instructor.get('/me'),
          client(url).post('/token', { user_id: 'student', password: 'student' }),
        ]);
        return tally(me) && tally(token) ? true : undefined;
      },
      server.output,
    );
    // Some were sent while it was down, and each answered as a client can retry; never INTERNAL, never without an answer.
    expect(answers.get('error RETRYABLE') ?? 0, JSON.stringify([...answers])).toBeGreaterThan(0);
    expect([...answers.keys()].sort()).toEqual(['error RETRYABLE', 'success']);
    await until(
      'the server says DynamoDB Local is answering again',
      async () => (server.output().includes('DynamoDB Local is answering again.') ? true : undefined),
      server.output,
    );
    expect(server.output()).toContain('DynamoDB Local killed by SIGKILL: starting it again (requests meanwhile answer RETRYABLE)…');
    // What was written before it died is still there, served by a new DynamoDB Local.
    const listed = await instructor.get('/f26/sample/gradeables');
    expect(listed.status, JSON.stringify(listed)).toBe('success');
    expect(JSON.stringify(listed.data)).toContain('written_before');
    const second = onlyDynamoDbLocalOf(server.pid);
    expect(second).not.toBe(first);

    // Dead again within a minute of its restart: the API stops, saying why, and leaves no Java behind.
    process.kill(second, 'SIGKILL');
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain(
      'DynamoDB Local killed by SIGKILL again within a minute of answering after its restart; stopping the API, which cannot work without it.',
    );
    expect(server.output().match(/starting it again/g)).toHaveLength(1);
    await until(
      'no DynamoDB Local serves its data folder',
      async () => (dynamoDbLocalServing(dataDir).length === 0 ? true : undefined),
      server.output,
      120,
    );
  }, 240_000);

  it('does not outlive a server killed with SIGKILL', async () => {
    const dataDir = await dataFolder();
    const server = startServer(dataDir);
    await server.url;
    const java = onlyDynamoDbLocalOf(server.pid);
    // The server alone, not its process group: nothing of it gets to stop DynamoDB Local.
    process.kill(server.pid, 'SIGKILL');
    expect(await server.exited).toBeNull();
    await until(
      'its DynamoDB Local has exited',
      async () => (dynamoDbLocalServing(dataDir).includes(java) ? undefined : true),
      () => `DynamoDB Local ${java} still runs\n${server.output()}`,
      120,
    );
  }, 120_000);
});
