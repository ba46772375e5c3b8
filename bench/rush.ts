import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { readClassList } from '#shared/courses/class-list.ts';
import { importClassList } from '#shared/courses/enroll.ts';
import { dynamo } from '#shared/data/client.ts';
import { signToken } from '#shared/auth/jwt.ts';
import { newTokenClaims } from '#shared/auth/tokens.ts';
import { batchWrite } from '#shared/data/batch-write.ts';
import { getItems } from '#shared/data/items.ts';
import { putSession } from '#shared/data/sessions.ts';
import { jobRef, QUEUE_SHARDS, queueRef } from '#shared/data/jobs.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { shardOf } from '#shared/queue/tickets.ts';
import { tableName, tables, type TableDefinition } from '#shared/data/tables.ts';
import { median, ms, ownCpuMs, processCpuMs, progress, ratio, sleep, type Row, type SectionResult } from './common.ts';
import { createWorld, type World } from './world.ts';

type WithTables = <T>(prefix: string, body: () => Promise<T>) => Promise<T>;

const SECTION = 'Deadline rush';
const TARGET = 0.8;
const WRITES_TARGET = 2.05;
/** Items one accepted submission may read at most (its own checks': the queue is never read whole). */
const ITEMS_TARGET = 10;
/** DynamoDB Local's CPU per accepted submission at most, in physical-limit ideal submissions. */
const CPU_TARGET = 1.5;
const WARM_UP_SUBMISSIONS = 10;
/** Students of their own who submit at once before the rush: the ideal's paths are warm in DynamoDB Local's JIT when measured (its warm-up round), so are the rush's. */
const WARM_UP_RUSH = 100;
/**
 * The connections the students' requests share to the API server, as many as the ideal's SDK
 * opens to DynamoDB Local (its default): in AWS the students' own connections end at API Gateway,
 * and the functions never pay for them, so a thousand connections to one local process would
 * measure what the deployed service does not do.
 */
const STUDENT_CONNECTIONS = 50;
const students = new Agent({ keepAlive: true, maxSockets: STUDENT_CONNECTIONS });

/** One request of a student to the API server over the students' connections, its answer's envelope. */
function call(url: string, token: string, method: 'GET' | 'POST', body?: string): Promise<Answer> {
  return new Promise((resolve) => {
    const sent = request(
      url,
      {
        method,
        agent: students,
        headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer);
          } catch (error) {
            resolve({ status: 'no answer', message: (error as Error).message });
          }
        });
        response.on('error', (error) => resolve({ status: 'no answer', message: error.message }));
      },
    );
    sent.on('error', (error) => resolve({ status: 'no answer', message: error.message }));
    sent.end(body);
  });
}

/**
 * Students submitting at the same moment, through the local API server (in a process of its own,
 * workers: 0) over HTTP, against three ideals sent straight from this process in the same run, each
 * on a sampled submission's own requests (one of the warm-up rush's): the physical-limit ideal, a
 * BatchGetItem of the items a submission must read (those it read, but this design's queue
 * counters), then its transaction as it sent it, conditions and the gradeable's check included, on
 * copies of the items it writes in partitions of their own; the same with that transaction's writes
 * as unconditional puts (a floor below any correct submission); and this design's own requests (the
 * reads as sent, a ticket's UpdateItem, the transaction). 300 and 1,000 at once, each with no error
 * answer, ≤ 10 items read and ≤ 2.05 write requests per accepted submission, and DynamoDB Local's CPU
 * per accepted submission ≤ 1.5× the physical-limit ideal's; the rate is reported against each
 * ideal; the warm-up's submissions, one after another, cancel no transaction. Both sides are
 * measured warm: the ideals after a round of their own and in rounds before and after the rush
 * (their medians are the baselines), the rush on connections opened beforehand, after 100 other
 * students submitted at once, and after an unreported rush of the first size. The server counts its
 * DynamoDB requests by command and the items its BatchGetItems ask for. Each case then checks the
 * queue (one version and one job per student, every ticket unique and queued on its counter),
 * measures each request shape alone (requestCosts) and a ticket's reservation on copies of the
 * counters as the rush left them and on empty ones (reservationCost).
 * `inMemory`: whether DynamoDB Local holds its data in memory (said in each row: on disk it spends
 * more CPU a write).
 */
export async function measureRush(withTables: WithTables, dynamoDbPid: number | undefined, inMemory: boolean): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  // The first size once more before those reported, its results dropped: DynamoDB Local's JVM
  // compiles the paths of a rush (conditional updates, transactions over existing items) during the
  // first one, which cost it half as much CPU again as the same rush right after.
  const sizes = rushSizes();
  for (const [index, students] of [sizes[0]!, ...sizes].entries()) {
    const reported = index > 0;
    await withTables(`rush${students}${reported ? '' : 'warm'}-`, async () => {
      progress(`rush: ${students} students (setting up${reported ? '' : ', a round to warm up, not reported'})`);
      const world = await createWorld({ submit: false });
      const enrolled = await enrollStudents(world, students + WARM_UP_RUSH);
      const [warmers, tokens] = [enrolled.slice(students), enrolled.slice(0, students)];
      const server = await startServer();
      try {
        await commandCounts(server.child, 'reset');
        await warmUp(server.url, world);
        const sequential = await commandCounts(server.child, 'read');
        await warmRush(server.url, world, warmers);
        const own = await ownItems(await submissionSample(server.child));
        // Each ideal once to warm up, then measured in rounds before and after the rush.
        for (const shape of IDEAL_SHAPES) await idealRound(shape, students, own, dynamoDbPid);
        const rounds = await idealRounds(students, own, dynamoDbPid);
        // The ideal runs on connections its warm-up round opened: so does the rush.
        await warmConnections(server.url, tokens);
        progress(`rush: ${students} submissions at once`);
        await commandCounts(server.child, 'reset');
        const rushCpu = cpuMeter({ dynamoDb: dynamoDbPid, server: server.child.pid });
        const started = performance.now();
        const answers = await Promise.all(tokens.map(({ token }) => submit(server.url, world, token)));
        const seconds = (performance.now() - started) / 1000;
        // The machine may be shared: how busy it was, beside the ratios measured in it.
        const load = loadavg()[0]!.toFixed(1);
        const rushCost = rushCpu.perItem(students);
        const counts = await commandCounts(server.child, 'read');
        const errors = answers.filter((answer) => answer.status !== 'success');
        const accepted = students - errors.length;
        const rate = students / seconds;
        // The ideals' rounds before and after the rush; their medians are the baselines, as an
        // ideal's own CPU moves between rounds by as much as a third on this machine while the rush's does not.
        mergeRounds(rounds, await idealRounds(students, own, dynamoDbPid));
        const ideal = summarise(rounds);
        const writes = writeRequests(counts) / Math.max(1, accepted);
        const itemsRead = counts.batchGetKeys / Math.max(1, accepted);
        const cpuRatio = (shape: IdealShape) => {
          const idealCpu = ideal[shape].cost.dynamoDb;
          return rushCost.dynamoDb !== undefined && idealCpu ? rushCost.dynamoDb / idealCpu : undefined;
        };
        const targetRatio = cpuRatio('physical');
        const queue = await checkQueue(world, tokens);
        const shapes = await requestCosts(students, own, dynamoDbPid);
        const reservation = await reservationCost(students, dynamoDbPid);
        const met =
          errors.length === 0 &&
          queue.problems.length === 0 &&
          writes <= WRITES_TARGET &&
          itemsRead <= ITEMS_TARGET &&
          (targetRatio === undefined || targetRatio <= CPU_TARGET) &&
          sequential.cancelled === 0;
        if (!reported) return;
        const storage = inMemory ? 'DynamoDB Local in memory' : 'DynamoDB Local on disk';
        const rates = IDEAL_SHAPES.map((shape) => `${ratio(rate / ideal[shape].rate)} ${IDEAL_NAMES[shape]}'s`).join(', ');
        const cpuRatios = IDEAL_SHAPES.flatMap((shape) => {
          const value = cpuRatio(shape);
          return value === undefined ? [] : [`${value.toFixed(2)}× ${IDEAL_NAMES[shape]}'s`];
        }).join(', ');
        rows.push({
          section: SECTION,
          name: `${students.toLocaleString('en')} students submit at once (HTTP, local API; ${storage})`,
          target: `the rate reported; no error answer; ≤ ${ITEMS_TARGET} items read and ≤ ${WRITES_TARGET} write requests per accepted submission; DynamoDB Local's CPU per accepted submission ≤ ${CPU_TARGET}× the physical-limit ideal's; no transaction cancelled one after another; queue exact`,
          baseline: `straight from this process, ${students.toLocaleString('en')} at once, each the median of its rounds before and after the rush: the physical-limit ideal (a BatchGetItem of the ${own.reads} items a submission must read, then its transaction as it sent it, its ${own.transaction.length} items with their conditions, on copies of the items it writes in partitions of their own) ${describeIdeal(ideal.physical)}; the same with the transaction's ${own.writes} writes as unconditional puts ${describeIdeal(ideal.puts)}; this design's own (the BatchGetItem as sent, with the course's queue counters: ${own.sentReads} keys; a ticket's UpdateItem; the transaction as sent) ${describeIdeal(ideal.design)}`,
          measured:
            `${rate.toFixed(0)} submissions/s (${rates}), ${seconds.toFixed(2)} s, load average ${load}; ${errors.length} error answers; ` +
            `${itemsRead.toFixed(2)} items read and ${writes.toFixed(2)} write requests per accepted submission (requests: ${describeCounts(counts, accepted)}); ` +
            `${WARM_UP_SUBMISSIONS} submissions one after another before: ${sequential.cancelled} transactions cancelled; ${queue.summary}${costs(rushCost, ideal, cpuRatios)}${shapesNote(shapes)}${reservationNote(reservation)}`,
          met,
        });
        progress(`rush: ${students} at once: ${rows.at(-1)?.measured} (baseline: ${rows.at(-1)?.baseline})`);
        if (errors.length > 0) {
          const codes = [...new Set(errors.map((error) => `${error.status}${error.code ? ` ${error.code}` : ''}: ${error.message ?? ''}`))];
          notes.push(`- **${students} at once**: ${errors.length} error answers: ${codes.slice(0, 3).join('; ')}.`);
        }
        if (queue.problems.length > 0) notes.push(`- **${students} at once**: the queue is not exact: ${queue.problems.join('; ')}.`);
        if (!met && errors.length === 0 && queue.problems.length === 0) {
          notes.push(
            `- **${students} at once**: ${ratio(rate / ideal.physical.rate)} the physical-limit ideal's rate, ${itemsRead.toFixed(2)} items read and ${writes.toFixed(2)} writes per accepted submission. A submission is the token check (one BatchGetItem, with its submission, the student's count and its course's two queue counters of the minute), a ticket reserved on one queue counter without reading it (one UpdateItem adding the ticket to the counter's set, which also counts the course's minute), and one transaction writing its version, its job and the student's count; the ideal has no ticket and no handler, no HTTP exchange, on the same two cores as DynamoDB Local.${costNote(rushCost, ideal.physical.cost)}`,
          );
        }
      } finally {
        await stop(server.child);
      }
    });
  }
  return { rows, notes };
}

/** The cases: 300 and 1,000 at once, or those listed in BENCH_RUSH_STUDENTS (e.g. `300`). */
function rushSizes(): number[] {
  const listed =
    process.env.BENCH_RUSH_STUDENTS?.split(',')
      .map(Number)
      .filter((count) => Number.isInteger(count) && count > 0) ?? [];
  return listed.length > 0 ? listed : [300, 1_000];
}

interface CommandCounts {
  readonly commands: Record<string, number>;
  readonly batchGetKeys: number;
  readonly cancelled: number;
  readonly failed: number;
}

/** Reads (or reads and resets) the API server's counts of DynamoDB requests (throughput-server.ts). */
async function commandCounts(child: ChildProcess, action: 'read' | 'reset'): Promise<CommandCounts> {
  const answer = new Promise<CommandCounts>((resolve) => {
    const listen = (message: { counts?: CommandCounts }) => {
      if (!message.counts) return;
      child.off('message', listen);
      resolve(message.counts);
    };
    child.on('message', listen);
  });
  child.send({ counts: action });
  return answer;
}

const WRITE_COMMANDS = ['TransactWriteItems', 'UpdateItem', 'PutItem', 'DeleteItem', 'BatchWriteItem'];
const writeRequests = (counts: CommandCounts) => WRITE_COMMANDS.reduce((sum, name) => sum + (counts.commands[name] ?? 0), 0);

/** Each command's requests per accepted submission, and the transactions cancelled. */
function describeCounts(counts: CommandCounts, accepted: number): string {
  const per = (count: number) => (count / Math.max(1, accepted)).toFixed(2);
  const commands = Object.entries(counts.commands)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, count]) => `${name} ${per(count)}`);
  return `${commands.join(', ')} (TransactWriteItems cancelled ${per(counts.cancelled)}${counts.failed > 0 ? `, other failed requests ${per(counts.failed)}` : ''})`;
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

/** Where the CPU time of a submission went, beside that of one submission of each ideal. */
function costs(rush: CpuCost, ideal: Record<IdealShape, IdealSummary>, ratios: string): string {
  if (rush.dynamoDb === undefined) return '';
  const each = IDEAL_SHAPES.map(
    (shape) =>
      `${IDEAL_NAMES[shape]} ${ms(total(ideal[shape].cost))}: DynamoDB Local ${ms(ideal[shape].cost.dynamoDb ?? 0)}, client ${ms(ideal[shape].cost.own ?? 0)}`,
  );
  return (
    `; CPU per submission ${ms(total(rush))}: DynamoDB Local ${ms(rush.dynamoDb)}${ratios ? ` (${ratios})` : ''}, API server ${ms(rush.server ?? 0)}, load generator ${ms(rush.own ?? 0)}` +
    ` (per submission of ${each.join('; ')})`
  );
}

/** How many ideal submissions one submission costs in CPU time. */
function costNote(rush: CpuCost, ideal: CpuCost): string {
  if (rush.dynamoDb === undefined || ideal.dynamoDb === undefined) return '';
  return ` In CPU time (measured per process, see the row), one submission cost as much as ${(total(rush) / total(ideal)).toFixed(2)} ideal ones, and its DynamoDB Local time alone as much as ${(rush.dynamoDb / ideal.dynamoDb).toFixed(2)}; at ${TARGET}× the ideal's rate on the same cores it could cost at most about ${(1 / TARGET).toFixed(2)}.`;
}

/** What one ticket's reservation cost DynamoDB Local, by how full its counter was. */
function reservationNote({ perCounter, full, empty }: ReservationCost): string {
  if (full === undefined || empty === undefined) return '';
  return `; a ticket's reservation alone (its UpdateItem, as many at once) cost DynamoDB Local ${ms(full)} on counters holding ${perCounter.toFixed(0)} tickets each, as the rush left them, and ${ms(empty)} on empty ones`;
}

/** `count` students enrolled by a class-list import (no passwords: sessions are written directly). */
async function enrollStudents(world: World, count: number): Promise<{ userId: string; token: string }[]> {
  const csv = [
    'user_id,first_name,last_name,email,registration_section,group',
    ...Array.from({ length: count }, (_, i) => `rush${i},First${i},Last${i},rush${i}@example.edu,${(i % 10) + 1},4`),
  ].join('\n');
  await importClassList(world.course, readClassList(csv), { actor: 'admin' });
  // Sessions written 25 a request, a few requests at once: a loaded DynamoDB Local takes hundreds of
  // concurrent transactions badly, and setting up is not what is measured.
  const claims = Array.from({ length: count }, (_, i) => newTokenClaims(`rush${i}`));
  await batchWrite(
    claims.map((claim) => ({ tableName: tableName(tables.sessions), request: { PutRequest: { Item: putSession(claim).Put!.Item } } })),
  );
  return Promise.all(claims.map(async (claim) => ({ userId: claim.userId, token: await signToken(claim) })));
}

interface Answer {
  readonly status: string;
  readonly code?: string;
  readonly message?: string;
}

function submit(url: string, world: World, token: string): Promise<Answer> {
  const { course, gradeableId } = world;
  const body = new URLSearchParams({ vcs_checkout: 'true', git_repo_id: 'none' }).toString();
  return call(`${url}/api/${course.term}/${course.course}/gradeable/${gradeableId}/upload`, token, 'POST', body);
}

/**
 * This design's reservation on a copy of a queue counter (the item `job` of the jobs table): the
 * ticket added to its set unread, the same write counting a course's minute, as reserveTicket does.
 */
const reserveCopy = (job: string, ticket: number) =>
  dynamo().send(
    new UpdateCommand({
      TableName: tableName(tables.jobs),
      Key: { job },
      UpdateExpression: 'ADD queued :ticketSet, #burst :one',
      ConditionExpression: 'NOT contains(queued, :ticket)',
      ExpressionAttributeNames: { '#burst': `burst#ideal#${Math.floor(Date.now() / 60_000)}` },
      ExpressionAttributeValues: { ':ticketSet': new Set([ticket]), ':ticket': ticket, ':one': 1 },
    }),
  );

/** What a ticket's reservation cost DynamoDB Local, on counters as full as the rush left its own and on empty ones. */
interface ReservationCost {
  /** Tickets per counter in the full counters (the rush's, copied). */
  readonly perCounter: number;
  /** DynamoDB Local's CPU per reservation, in ms (the lower of two rounds each). */
  readonly full: number | undefined;
  readonly empty: number | undefined;
}

/**
 * This design's reservation alone, `count` at once straight from this process: each an UpdateItem
 * adding a new ticket to one of the queue's counters unread (with its course's count of the
 * minute), round robin, on copies of the counters as the rush left them, and on as many empty
 * ones: whether the counters' growing sets, or the request itself, is what a ticket costs.
 */
async function reservationCost(count: number, dynamoDbPid: number | undefined): Promise<ReservationCost> {
  const TableName = tableName(tables.jobs);
  const { queue } = await getItems({ queue: queueRef() });
  const run = `${Date.now()}`;
  const reserve = async (kind: 'full' | 'empty', round: number) => {
    const prefix = `ideal#${kind}#${run}#${round}`;
    await Promise.all(
      queue.map((counter) =>
        dynamo().send(
          new PutCommand({
            TableName,
            Item: {
              job: `${prefix}#${counter.shard}`,
              ...(kind === 'full' && counter.queued.length > 0 ? { queued: new Set(counter.queued) } : {}),
            },
          }),
        ),
      ),
    );
    const meter = cpuMeter({ dynamoDb: dynamoDbPid });
    await Promise.all(Array.from({ length: count }, (_, index) => reserveCopy(`${prefix}#${index % queue.length}`, 1e15 + index)));
    return meter.perItem(count).dynamoDb;
  };
  const lower = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : Math.min(a, b));
  const [empty1, full1, empty2, full2] = [
    await reserve('empty', 0),
    await reserve('full', 0),
    await reserve('empty', 1),
    await reserve('full', 1),
  ];
  const tickets = queue.reduce((sum, counter) => sum + counter.queued.length, 0);
  return { perCounter: tickets / Math.max(1, queue.length), full: lower(full1, full2), empty: lower(empty1, empty2) };
}

/** One version and one job per student, every ticket unique, and every one queued on its counter. */
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
  const queued = new Set(queue.flatMap((counter) => counter.queued));
  const absent = tickets.filter((ticket) => !queued.has(ticket)).length;
  if (absent > 0) problems.push(`${absent} tickets not in their counter's set`);
  const used = new Set(tickets.map(shardOf)).size;
  return { summary: `${unique} unique tickets over ${used} counters, all with their jobs and queued`, problems };
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  // BENCH_RUSH_SERVER_ARGS: Node options for the server alone (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where its CPU goes).
  const extra = process.env.BENCH_RUSH_SERVER_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = fork(new URL('./throughput-server.ts', import.meta.url), ['api'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...extra],
  });
  const [{ url }] = (await once(child, 'message')) as [{ url: string }];
  return { url, child };
}

/** The input of the last BatchGetItem and transaction the API server sent (throughput-server.ts), as plain values. */
async function submissionSample(child: ChildProcess): Promise<SubmissionSample> {
  const answer = new Promise<SubmissionSample>((resolve) => {
    const listen = (message: { sample?: string }) => {
      if (message.sample === undefined) return;
      child.off('message', listen);
      resolve(plain(JSON.parse(message.sample)) as SubmissionSample);
    };
    child.on('message', listen);
  });
  child.send({ sample: true });
  return answer;
}

interface SubmissionSample {
  readonly BatchGetItem?: {
    readonly RequestItems: Record<string, { readonly Keys: Record<string, unknown>[]; readonly ConsistentRead?: boolean }>;
  };
  readonly TransactWriteItems?: {
    readonly TransactItems: Record<
      string,
      { readonly TableName: string; readonly Key?: Record<string, unknown>; readonly Item?: Record<string, unknown> }
    >[];
  };
}

const ATTRIBUTE_TYPES = ['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS'];

/** Attribute values as the document client writes them (a marshalled `{S: 'x'}` becomes 'x'), whichever form the request was caught in. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first && ATTRIBUTE_TYPES.includes(first[0])) {
    const [type, inner] = first;
    if (type === 'N') return Number(inner);
    if (type === 'NS') return new Set((inner as string[]).map(Number));
    if (type === 'SS') return new Set(inner as string[]);
    if (type === 'NULL') return null;
    if (type === 'M' || type === 'L') return plain(inner);
    return inner;
  }
  return Object.fromEntries(entries.map(([key, inner]) => [key, plain(inner)]));
}

type SampledTransaction = NonNullable<SubmissionSample['TransactWriteItems']>['TransactItems'];

interface OwnItems {
  /** The keys a submission must read, by table: those it read, but the queue counters this design adds. */
  readonly read: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }>;
  /** The BatchGetItem as the submission sent it, the course's queue counters of the minute included. */
  readonly sent: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }>;
  /** The submission's transaction as it sent it: its items, their conditions and the gradeable's check. */
  readonly transaction: SampledTransaction;
  /** Each item its transaction wrote, as it stands, and the key attributes a copy changes (its table's and its indexes' partition keys). */
  readonly written: { readonly table: string; readonly item: Record<string, unknown>; readonly keys: readonly string[] }[];
  readonly reads: number;
  readonly sentReads: number;
  readonly writes: number;
}

const definitionOf = (name: string): TableDefinition => {
  const definition = Object.values(tables).find((table) => tableName(table) === name);
  if (!definition) throw new Error(`rush: no table is named ${name}`);
  return definition;
};

/** The partition keys of a table and of its indexes: what a copy of one of its items changes. */
const copiedKeys = (definition: TableDefinition) => [
  definition.partitionKey,
  ...(definition.globalIndexes ?? []).map((index) => index.partitionKey),
];

/** What the ideals read and write: a sampled submission's own requests, on their own tables. */
async function ownItems(sample: SubmissionSample): Promise<OwnItems> {
  const batch = sample.BatchGetItem?.RequestItems;
  const transaction = sample.TransactWriteItems?.TransactItems;
  if (!batch || !transaction) throw new Error('rush: the API server sent no BatchGetItem or transaction to sample');
  const counters = new Set(Array.from({ length: QUEUE_SHARDS }, (_, shard) => `tickets#${shard}`));
  const read = Object.fromEntries(
    Object.entries(batch).map(([table, request]) => [
      table,
      { ...request, Keys: request.Keys.filter((key) => !counters.has(String(key.job))) },
    ]),
  );
  const written = await Promise.all(
    transaction.flatMap((entry) =>
      Object.entries(entry)
        .filter(([kind]) => kind === 'Put' || kind === 'Update')
        .map(async ([, body]) => {
          const definition = definitionOf(body.TableName);
          const key =
            body.Key ??
            Object.fromEntries([definition.partitionKey, definition.sortKey].flatMap((name) => (name ? [[name, body.Item?.[name]]] : [])));
          const { Item } = await dynamo().send(new GetCommand({ TableName: body.TableName, Key: key, ConsistentRead: true }));
          if (!Item) throw new Error(`rush: the item a submission wrote to ${body.TableName} is not there`);
          return { table: body.TableName, item: Item, keys: copiedKeys(definition).filter((name) => typeof Item[name] === 'string') };
        }),
    ),
  );
  const count = (requests: OwnItems['read']) => Object.values(requests).reduce((sum, request) => sum + request.Keys.length, 0);
  return { read, sent: batch, transaction, written, reads: count(read), sentReads: count(batch), writes: written.length };
}

/**
 * The submission's transaction as it sent it, on items of its own (`suffix` added to the partition
 * keys it writes, so each copy lies in partitions of its own, as each student's items do): its
 * conditions hold as they did for the student's first version, on items not there yet; the
 * gradeable's check reads the gradeable itself, unchanged.
 */
function replayedTransaction(own: OwnItems, suffix: string): SampledTransaction {
  return own.transaction.map((entry) =>
    Object.fromEntries(
      Object.entries(entry).map(([kind, body]) => {
        if (kind === 'ConditionCheck') return [kind, body];
        const definition = definitionOf(body.TableName);
        if (body.Key)
          return [
            kind,
            { ...body, Key: { ...body.Key, [definition.partitionKey]: `${String(body.Key[definition.partitionKey])}${suffix}` } },
          ];
        const item = { ...body.Item };
        for (const key of copiedKeys(definition)) if (typeof item[key] === 'string') item[key] = `${item[key]}${suffix}`;
        return [kind, { ...body, Item: item }];
      }),
    ),
  );
}

/** The written items as unconditional puts of copies (keyed apart, with their sizes and their tables' indexes). */
const copiedPuts = (own: OwnItems, suffix: string) =>
  own.written.map(({ table, item, keys }) => ({
    Put: { TableName: table, Item: { ...item, ...Object.fromEntries(keys.map((key) => [key, `${String(item[key])}${suffix}`])) } },
  }));

/**
 * The ideals, each a submission's DynamoDB requests sent straight from this process (no HTTP, no
 * handler): `physical`, the physical limit (what a submission must read, then its transaction);
 * `puts`, the same with the transaction's writes as unconditional puts (a floor no correct
 * submission reaches: nothing it read would hold when it writes); `design`, this design's own
 * requests (the reads as sent, with the course's queue counters; a ticket's UpdateItem; the transaction).
 */
const IDEAL_SHAPES = ['physical', 'puts', 'design'] as const;
type IdealShape = (typeof IDEAL_SHAPES)[number];
const IDEAL_NAMES: Record<IdealShape, string> = {
  physical: 'the physical-limit ideal',
  puts: 'the unconditional puts',
  design: "this design's own",
};

let idealRun = 0;

/** `count` submissions of one ideal at once; its rate and its CPU per submission. */
async function idealRound(shape: IdealShape, count: number, own: OwnItems, dynamoDbPid: number | undefined): Promise<IdealRound> {
  const run = `#ideal#${Date.now()}#${idealRun++}`;
  const ticket = (index: number) => reserveCopy(`tickets${run}#${index % QUEUE_SHARDS}`, index);
  const meter = cpuMeter({ dynamoDb: dynamoDbPid });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const suffix = `${run}#${index}`;
      await dynamo().send(new BatchGetCommand({ RequestItems: shape === 'design' ? own.sent : own.read }));
      if (shape === 'design') await ticket(index);
      const items = shape === 'puts' ? copiedPuts(own, suffix) : replayedTransaction(own, suffix);
      await dynamo().send(new TransactWriteCommand({ TransactItems: items as never }));
    }),
  );
  const rate = count / ((performance.now() - started) / 1000);
  return { rate, cost: meter.perItem(count) };
}

interface IdealRound {
  readonly rate: number;
  readonly cost: CpuCost;
}

/** A round of each ideal, the physical limit's twice (its median is the target's baseline). */
async function idealRounds(count: number, own: OwnItems, dynamoDbPid: number | undefined): Promise<Record<IdealShape, IdealRound[]>> {
  const rounds: Record<IdealShape, IdealRound[]> = { physical: [], puts: [], design: [] };
  for (const shape of ['physical', 'puts', 'design', 'physical'] as const)
    rounds[shape].push(await idealRound(shape, count, own, dynamoDbPid));
  return rounds;
}

function mergeRounds(into: Record<IdealShape, IdealRound[]>, more: Record<IdealShape, IdealRound[]>): void {
  for (const shape of IDEAL_SHAPES) into[shape].push(...more[shape]);
}

interface IdealSummary {
  readonly rate: number;
  readonly cost: CpuCost;
  readonly rounds: readonly IdealRound[];
}

function summarise(rounds: Record<IdealShape, IdealRound[]>): Record<IdealShape, IdealSummary> {
  const of = (shape: IdealShape): IdealSummary => ({
    rate: median(rounds[shape].map((round) => round.rate)),
    cost: medianCost(rounds[shape].map((round) => round.cost)),
    rounds: rounds[shape],
  });
  return { physical: of('physical'), puts: of('puts'), design: of('design') };
}

/** An ideal's rate and how far its rounds were apart in DynamoDB Local's CPU per submission. */
function describeIdeal({ rate, rounds }: IdealSummary): string {
  const cpu = rounds.map((round) => round.cost.dynamoDb).filter((value) => value !== undefined);
  const spread = cpu.length === 0 ? '' : `, DynamoDB Local ${ms(Math.min(...cpu))} to ${ms(Math.max(...cpu))} per submission`;
  return `${rate.toFixed(0)}/s (${rounds.length} rounds${spread})`;
}

/** Each process's median CPU per submission over rounds (where every round could read it). */
function medianCost(costs: readonly CpuCost[]): CpuCost {
  const cost: CpuCost = {};
  for (const name of ['dynamoDb', 'server', 'own'] as const) {
    const values = costs.map((each) => each[name]).filter((value) => value !== undefined);
    if (values.length === costs.length && values.length > 0) cost[name] = median(values);
  }
  return cost;
}

/** DynamoDB Local's CPU per request of each shape a submission sends, alone, `count` at once (the lower of two rounds after one to warm up). */
interface RequestCosts {
  /** The submission's BatchGetItem as sent (with the course's queue counters of the minute). */
  readonly reads: number | undefined;
  /** The same without the queue counters: the physical limit's. */
  readonly ownReads: number | undefined;
  /** The transaction as sent, conditions and all, on copies. */
  readonly transaction: number | undefined;
  /** Its writes as unconditional puts of copies. */
  readonly puts: number | undefined;
}

async function requestCosts(count: number, own: OwnItems, dynamoDbPid: number | undefined): Promise<RequestCosts> {
  const run = `#alone#${Date.now()}`;
  const measure = async (send: (suffix: string) => Promise<unknown>) => {
    const rounds: number[] = [];
    for (const round of [0, 1, 2]) {
      const meter = cpuMeter({ dynamoDb: dynamoDbPid });
      await Promise.all(Array.from({ length: count }, (_, index) => send(`${run}#${round}#${index}`)));
      const cpu = meter.perItem(count).dynamoDb;
      if (round > 0 && cpu !== undefined) rounds.push(cpu);
    }
    return rounds.length > 0 ? Math.min(...rounds) : undefined;
  };
  return {
    reads: await measure(() => dynamo().send(new BatchGetCommand({ RequestItems: own.sent }))),
    ownReads: await measure(() => dynamo().send(new BatchGetCommand({ RequestItems: own.read }))),
    transaction: await measure((suffix) =>
      dynamo().send(new TransactWriteCommand({ TransactItems: replayedTransaction(own, `#${suffix}`) as never })),
    ),
    puts: await measure((suffix) => dynamo().send(new TransactWriteCommand({ TransactItems: copiedPuts(own, `#${suffix}`) }))),
  };
}

function shapesNote({ reads, ownReads, transaction, puts }: RequestCosts): string {
  if (reads === undefined || ownReads === undefined || transaction === undefined || puts === undefined) return '';
  return `; DynamoDB Local's CPU per request alone, as many at once: the submission's BatchGetItem ${ms(reads)} (${ms(ownReads)} without the queue counters), its transaction ${ms(transaction)} (${ms(puts)} as unconditional puts)`;
}

/** Submissions of the world's submitter first, so the server's modules are loaded and DynamoDB Local's JVM is warm. */
async function warmUp(url: string, world: World): Promise<void> {
  for (let i = 0; i < WARM_UP_SUBMISSIONS; i++) {
    const answer = await submit(url, world, world.tokens.submitter);
    if (answer.status !== 'success') throw new Error(`rush: the warm-up submission failed: ${JSON.stringify(answer)}`);
  }
}

/** The warm-up students submit at once (each once): every path of a submission in a rush, compiled before it is measured. */
async function warmRush(url: string, world: World, warmers: readonly { token: string }[]): Promise<void> {
  const answers = await Promise.all(warmers.map(({ token }) => submit(url, world, token)));
  const failed = answers.filter((answer) => answer.status !== 'success');
  if (failed.length > 0) throw new Error(`rush: ${failed.length} warm-up submissions failed: ${JSON.stringify(failed[0])}`);
}

/**
 * Every student reads their account (GET /api/me, a token check) at once, as the ideal's warm-up
 * round does its calls: the connections a rush needs, from the students to the server and from the
 * server to DynamoDB Local, are open when it starts, as the ideal's are when it is measured.
 */
async function warmConnections(url: string, readers: readonly { token: string }[]): Promise<void> {
  // A kept-alive connection the server closed while the ideal ran hangs up once; the read is repeated on a new one.
  const read = async (token: string) => {
    const answer = await call(`${url}/api/me`, token, 'GET');
    return answer.status === 'no answer' ? call(`${url}/api/me`, token, 'GET') : answer;
  };
  const answers = await Promise.all(readers.map(({ token }) => read(token)));
  const failed = answers.filter((answer) => answer.status !== 'success');
  if (failed.length > 0) throw new Error(`rush: ${failed.length} of ${readers.length} warm-up reads failed: ${JSON.stringify(failed[0])}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.disconnect();
  await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
}
