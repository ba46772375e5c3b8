import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { BatchGetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { readClassList } from '#shared/courses/class-list.ts';
import { importClassList } from '#shared/courses/enroll.ts';
import { dynamo } from '#shared/data/client.ts';
import { getItems } from '#shared/data/items.ts';
import { jobRef, queueRef } from '#shared/data/jobs.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { ms, ownCpuMs, processCpuMs, progress, ratio, sleep, type Row, type SectionResult } from './common.ts';
import { createWorld, sessionToken, type World } from './world.ts';

type WithTables = <T>(prefix: string, body: () => Promise<T>) => Promise<T>;

const SECTION = 'Deadline rush';
const TARGET = 0.3;
const WARM_UP_SUBMISSIONS = 10;

/**
 * Students submitting at the same moment, through the local API server (in a process of its own,
 * workers: 0) over HTTP, against a burst of as many PutItems on the same DynamoDB Local in the same
 * run: 300 at once (rate ≥ 0.3× the burst's, no error answer) and 1,000 at once (no error answer).
 * Each case then checks the queue: one version and one job per student, every ticket unique, and
 * the queue's counters accounting for exactly the tickets issued.
 */
export async function measureRush(withTables: WithTables, dynamoDbPid: number | undefined): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const students of [300, 1_000]) {
    await withTables(`rush${students}-`, async () => {
      progress(`rush: ${students} students (setting up)`);
      const world = await createWorld({ submit: false });
      const tokens = await enrollStudents(world, students);
      const server = await startServer();
      try {
        await warmUp(server.url, world);
        await putItemBurst(students); // once to warm up, then measured
        const burstCpu = cpuMeter({ dynamoDb: dynamoDbPid });
        const burst = await putItemBurst(students);
        const burstCost = burstCpu.perItem(students);
        progress(`rush: ${students} submissions at once`);
        const rushCpu = cpuMeter({ dynamoDb: dynamoDbPid, server: server.child.pid });
        const started = performance.now();
        const answers = await Promise.all(tokens.map(({ token }) => submit(server.url, world, token)));
        const seconds = (performance.now() - started) / 1000;
        const rushCost = rushCpu.perItem(students);
        const errors = answers.filter((answer) => answer.status !== 'success');
        const rate = students / seconds;
        const relative = rate / burst;
        const queue = await checkQueue(world, tokens);
        // After the rush, so that its load does not fall on the rush.
        const transactions = await transactionBurst(students);
        const ceiling = await readThenTransactionBurst(students);
        const met = errors.length === 0 && queue.problems.length === 0 && (students > 300 || relative >= TARGET);
        rows.push({
          section: SECTION,
          name: `${students.toLocaleString('en')} students submit at once (HTTP, local API)`,
          target: students > 300 ? 'no error answer; queue exact' : `≥ ${TARGET}× the PutItem burst's rate; no error answer; queue exact`,
          baseline: `${students.toLocaleString('en')} PutItems at once: ${burst.toFixed(0)}/s (and ${students.toLocaleString('en')} three-item transactions at once: ${transactions.toFixed(0)}/s; as many reads of 21 items each followed by a three-item transaction: ${ceiling.toFixed(0)}/s, ${ratio(ceiling / burst)})`,
          measured: `${rate.toFixed(0)} submissions/s (${ratio(relative)}), ${seconds.toFixed(2)} s; ${errors.length} error answers; ${queue.summary}${costs(rushCost, burstCost)}`,
          met,
        });
        if (errors.length > 0) {
          const codes = [...new Set(errors.map((error) => `${error.status}${error.code ? ` ${error.code}` : ''}: ${error.message ?? ''}`))];
          notes.push(`- **${students} at once**: ${errors.length} error answers: ${codes.slice(0, 3).join('; ')}.`);
        }
        if (queue.problems.length > 0) notes.push(`- **${students} at once**: the queue is not exact: ${queue.problems.join('; ')}.`);
        if (!met && errors.length === 0 && queue.problems.length === 0) {
          notes.push(
            `- **${students} at once**: ${ratio(relative)} the burst's rate. A submission is a token check (one BatchGetItem) and a three-item transaction (version, job, the lowest free ticket's counter); all but one of the submissions arriving together collide on that ticket, reserve one with an atomic counter instead and write their version and job in a second transaction (for two seconds after a collision the server reserves at once, without the transaction bound to fail). DynamoDB Local runs a burst of three-item transactions at ${ratio(transactions / burst)} its PutItem rate, and the DynamoDB calls of an ideal submission alone — a BatchGetItem of 21 items (the token check with the queue's 16 counters) then one three-item transaction, sent straight from this process with no handler, no HTTP and no collision — at ${ratio(ceiling / burst)} (see the baseline). That is the ceiling of any submission that reads once and writes its version and job together; the submission itself adds the reservation (and the colliding first transactions of the first wave), the handler (token verification, parsing, the envelope) and the HTTP exchange, on the same two cores as DynamoDB Local.${costNote(rushCost, burstCost)}`,
          );
        }
      } finally {
        await stop(server.child);
      }
    });
  }
  return { rows, notes };
}

type CpuCost = Partial<Record<'dynamoDb' | 'server' | 'own', number>>;

/** CPU time used from now by DynamoDB Local's JVM, the API server and this process (the load generator or client). */
function cpuMeter(pids: { dynamoDb: number | undefined; server?: number | undefined }) {
  const read = (): CpuCost => ({ dynamoDb: processCpuMs(pids.dynamoDb), server: processCpuMs(pids.server), own: ownCpuMs() });
  const before = read();
  return {
    /** Each process's CPU time per item of `count`, where it could be read. */
    perItem(count: number): CpuCost {
      const after = read();
      const cost: CpuCost = {};
      for (const name of ['dynamoDb', 'server', 'own'] as const) {
        const start = before[name];
        const end = after[name];
        if (start !== undefined && end !== undefined) cost[name] = (end - start) / count;
      }
      return cost;
    },
  };
}

/** The CPU time of all the processes measured. */
const total = (cost: CpuCost) => (cost.dynamoDb ?? 0) + (cost.server ?? 0) + (cost.own ?? 0);

/** Where the CPU time of a submission went, beside that of one PutItem of the burst. */
function costs(rush: CpuCost, burst: CpuCost): string {
  if (rush.dynamoDb === undefined || burst.dynamoDb === undefined) return '';
  return (
    `; CPU per submission ${ms(total(rush))}: DynamoDB Local ${ms(rush.dynamoDb)}, API server ${ms(rush.server ?? 0)}, load generator ${ms(rush.own ?? 0)}` +
    ` (per PutItem of the burst ${ms(total(burst))}: DynamoDB Local ${ms(burst.dynamoDb)}, client ${ms(burst.own ?? 0)})`
  );
}

/** How many PutItems of the burst one submission costs in CPU time, and what the target allows. */
function costNote(rush: CpuCost, burst: CpuCost): string {
  if (rush.dynamoDb === undefined || burst.dynamoDb === undefined) return '';
  return (
    ` In CPU time (measured per process, see the row), one submission cost as much as ${(total(rush) / total(burst)).toFixed(1)} PutItems of the burst,` +
    ` and its DynamoDB Local time alone as much as that of ${(rush.dynamoDb / burst.dynamoDb).toFixed(1)}; at ${TARGET}× the burst's rate on the same cores, a submission — the HTTP exchange, the token check, its read and the atomic write of its version and job — could cost at most about ${(1 / TARGET).toFixed(1)}.`
  );
}

/** `count` students enrolled by a class-list import (no passwords: sessions are written directly). */
async function enrollStudents(world: World, count: number): Promise<{ userId: string; token: string }[]> {
  const csv = [
    'user_id,first_name,last_name,email,registration_section,group',
    ...Array.from({ length: count }, (_, i) => `rush${i},First${i},Last${i},rush${i}@example.edu,${(i % 10) + 1},4`),
  ].join('\n');
  await importClassList(world.course, readClassList(csv), { actor: 'admin' });
  const tokens: { userId: string; token: string }[] = [];
  for (let start = 0; start < count; start += 50) {
    const ids = Array.from({ length: Math.min(50, count - start) }, (_, i) => `rush${start + i}`);
    tokens.push(...(await Promise.all(ids.map(async (userId) => ({ userId, token: await sessionToken(userId) })))));
  }
  return tokens;
}

interface Answer {
  readonly status: string;
  readonly code?: string;
  readonly message?: string;
}

async function submit(url: string, world: World, token: string): Promise<Answer> {
  const { course, gradeableId } = world;
  try {
    const response = await fetch(`${url}/api/${course.term}/${course.course}/gradeable/${gradeableId}/upload`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ vcs_checkout: 'true', git_repo_id: 'none' }).toString(),
    });
    return (await response.json()) as Answer;
  } catch (error) {
    return { status: 'no answer', message: (error as Error).message };
  }
}

/** PutItems of `count` new small items at once on the same DynamoDB: writes per second. */
async function putItemBurst(count: number): Promise<number> {
  const TableName = tableName(tables.jobs);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      dynamo().send(new PutCommand({ TableName, Item: { job: `burst#${index}`, state: 'burst', createdAt: new Date().toISOString() } })),
    ),
  );
  return count / ((performance.now() - started) / 1000);
}

/** Transactions of three new items at once on the same DynamoDB (a submission's least): transactions per second. */
async function transactionBurst(count: number): Promise<number> {
  const TableName = tableName(tables.jobs);
  const put = (key: string) => ({ Put: { TableName, Item: { job: key, state: 'burst' } } });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      dynamo().send(new TransactWriteCommand({ TransactItems: [0, 1, 2].map((item) => put(`burst-tx#${index}#${item}`)) })),
    ),
  );
  return count / ((performance.now() - started) / 1000);
}

/**
 * The DynamoDB calls of an ideal submission, straight from this process: a BatchGetItem of 21 items
 * (what the token check reads, the queue's 16 counters among them), then a three-item transaction.
 */
async function readThenTransactionBurst(count: number): Promise<number> {
  const TableName = tableName(tables.jobs);
  const keys = Array.from({ length: 21 }, (_, index) => ({ job: `burst#${index}` }));
  const put = (key: string) => ({ Put: { TableName, Item: { job: key, state: 'burst' } } });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      await dynamo().send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: keys } } }));
      await dynamo().send(new TransactWriteCommand({ TransactItems: [0, 1, 2].map((item) => put(`burst-read-tx#${index}#${item}`)) }));
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** One version and one job per student, every ticket unique, and the counters issued exactly those tickets. */
async function checkQueue(world: World, students: { userId: string }[]): Promise<{ summary: string; problems: string[] }> {
  const { course, gradeableId } = world;
  const problems: string[] = [];
  const tickets: number[] = [];
  let wrongVersions = 0;
  for (let start = 0; start < students.length; start += 90) {
    const chunk = students.slice(start, start + 90);
    const loaded = await getItems(
      Object.fromEntries(chunk.map(({ userId }) => [userId, submissionRef(course.term, course.course, gradeableId, userId)])),
    );
    for (const { userId } of chunk) {
      const versions = loaded[userId]?.versions ?? [];
      if (versions.length !== 1) wrongVersions++;
      tickets.push(...versions.map((version) => version.ticket));
    }
  }
  if (wrongVersions > 0) problems.push(`${wrongVersions} students without exactly one version`);
  for (let start = 0; start < tickets.length; start += 100) {
    const chunk = tickets.slice(start, start + 100);
    const jobs = await getItems(Object.fromEntries(chunk.map((ticket) => [ticket, jobRef(ticket)])));
    const missing = chunk.filter((ticket) => !jobs[ticket]);
    if (missing.length > 0) problems.push(`${missing.length} tickets without a job`);
  }
  const unique = new Set(tickets).size;
  if (unique !== tickets.length) problems.push(`${tickets.length - unique} tickets given twice`);
  const { queue } = await getItems({ queue: queueRef() });
  const issued = queue.reduce((sum, shard) => sum + shard.tail, 0) - WARM_UP_SUBMISSIONS;
  if (issued !== tickets.length) problems.push(`the counters issued ${issued} tickets for ${tickets.length} versions`);
  const used = queue.filter((shard) => shard.tail > 0).length;
  return { summary: `${unique} unique tickets over ${used} shards, all with their jobs`, problems };
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(new URL('./throughput-server.ts', import.meta.url), ['api'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const [{ url }] = (await once(child, 'message')) as [{ url: string }];
  return { url, child };
}

/** Submissions of the world's submitter first, so the server's modules are loaded and DynamoDB Local's JVM is warm. */
async function warmUp(url: string, world: World): Promise<void> {
  for (let i = 0; i < WARM_UP_SUBMISSIONS; i++) {
    const answer = await submit(url, world, world.tokens.submitter);
    if (answer.status !== 'success') throw new Error(`rush: the warm-up submission failed: ${JSON.stringify(answer)}`);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.disconnect();
  await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
}
