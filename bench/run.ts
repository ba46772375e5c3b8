import './setup-env.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSecretFile } from '#shared/auth/signing-secret.ts';
import { ensureToolKeyFile } from '#shared/lti/tool-keys.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { createTables, useLocalTables } from '#infra/local/tables.ts';
import { startS3Endpoint } from '#infra/local/s3-endpoint.ts';
import { progress, type Row, type SectionResult } from './common.ts';
import { measureColdStart } from './cold-start.ts';
import { measureGrading } from './grading.ts';
import { measureLatency } from './latency.ts';
import { measureRegrade } from './regrade.ts';
import { measureRequests } from './requests.ts';
import { WEBHOOK_HOST } from './scenarios.ts';
import { measureRush } from './rush.ts';
import { measureFairness } from './fairness.ts';
import { measureGradebook, measureGradebookExport } from './gradebook.ts';
import { measureFiles } from './files.ts';
import { measureSimilarity } from './similarity.ts';
import { measureClassListImport, measureQueuePosition, measureSummaries } from './scale.ts';
import { measureThroughput } from './throughput.ts';
import { measureTurnaround } from './turnaround.ts';
import { SHARED_REPOSITORY, startGitServer } from '../test/support/git-server.ts';
import { createWorld, useRepositories } from './world.ts';

/**
 * `npm run bench`: every measurement against a baseline in the same run, over one in-memory
 * DynamoDB Local, printed as one table and kept in bench/RESULTS.md with the machine and date.
 * `npm run bench -- requests latency` runs only the sections named (results are then not saved).
 */
const sections = [
  'cold-start',
  'requests',
  'latency',
  'throughput',
  'scale',
  'grading',
  'rush',
  'fairness',
  'gradebook',
  'gradebook-export',
  'turnaround',
  'files',
  'similarity',
] as const;
type Section = (typeof sections)[number];
const chosen = process.argv.slice(2) as Section[];
const unknown = chosen.filter((name) => !sections.includes(name));
if (unknown.length > 0) throw new Error(`Unknown section(s) ${unknown.join(', ')}; choose from ${sections.join(', ')}`);
// turnaround runs only when named: it synthesizes and deploys the stack and runs hundreds of emulated builds (needs root; minutes).
const runs = (section: Section) => (chosen.length === 0 && section !== 'turnaround') || chosen.includes(section);

/** Each section gets tables of its own (a name prefix) in the one DynamoDB Local. */
async function withTables<T>(prefix: string, body: () => Promise<T>): Promise<T> {
  process.env.TABLE_PREFIX = prefix;
  useLocalTables();
  await createTables();
  return body();
}

/**
 * What every route's scenario needs beyond the tables, for the time `body` runs: a local S3
 * endpoint for submitted files, the bench's webhook host allowed, and an identity provider named for
 * linking accounts to (nothing is ever sent to either).
 */
async function withRouteSettings<T>(body: () => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'bench-s3-'));
  const s3 = await startS3Endpoint({ directory, bucket: 'bench-submissions' });
  const settings: Record<string, string> = {
    S3_ENDPOINT: s3.url,
    SUBMISSIONS_BUCKET: s3.bucket,
    WEBHOOK_ALLOWED_HOSTS: WEBHOOK_HOST,
    OIDC_ISSUER: 'https://idp.bench.invalid',
    OIDC_CLIENT_ID: 'bench',
  };
  const before = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
  Object.assign(process.env, settings);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
    await s3.close();
    await rm(directory, { recursive: true, force: true });
  }
}

const started = performance.now();
const results: SectionResult[] = [];
const dynamoDb = await startDynamoDbLocal();
const secretDir = await mkdtemp(join(tmpdir(), 'bench-secret-'));
// Submissions read their repository's head: one repository at every path of a local git server.
const git = await startGitServer({ [SHARED_REPOSITORY.name]: SHARED_REPOSITORY.files }, { anyPath: SHARED_REPOSITORY.name });
try {
  process.env.ALLOWED_GIT_HOSTS = git.host;
  useRepositories(git.url);
  process.env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
  process.env.SIGNING_SECRET_FILE = join(secretDir, 'signing-secret');
  await ensureSecretFile(process.env.SIGNING_SECRET_FILE);
  process.env.LTI_KEY_FILE = join(secretDir, 'lti-key.json');
  await ensureToolKeyFile(process.env.LTI_KEY_FILE);
  // The grading worker signs each graded version's record (made once here, as npm start does).
  process.env.RECORD_KEYS_FILE = join(secretDir, 'record-keys');

  if (runs('cold-start')) results.push(await measureColdStart());
  if (runs('requests') || runs('latency')) {
    await withRouteSettings(() =>
      withTables('api-', async () => {
        progress('setting up users, a course, a gradeable and a submission');
        const world = await createWorld();
        if (runs('requests')) results.push(await measureRequests(world));
        if (runs('latency')) results.push(await measureLatency(world));
      }),
    );
  }
  if (runs('throughput')) results.push(await withTables('http-', measureThroughput));
  if (runs('scale')) {
    results.push(await measureQueuePosition(withTables));
    results.push(await measureSummaries(withTables));
    results.push(await withTables('bench-', () => measureClassListImport(1000)));
    results.push(await measureRegrade(withTables));
  }
  if (runs('grading')) results.push(await withTables('grading-', measureGrading));
  if (runs('rush')) results.push(await measureRush(withTables, dynamoDb.pid, dynamoDb.inMemory));
  if (runs('fairness')) results.push(await measureFairness(withTables));
  if (runs('gradebook')) results.push(await measureGradebook(withTables));
  if (runs('gradebook-export')) results.push(await withRouteSettings(() => measureGradebookExport(withTables)));
  if (runs('turnaround')) results.push(await withTables('turnaround-', measureTurnaround));
  if (runs('files')) results.push(await measureFiles(withTables));
  if (runs('similarity')) results.push(await measureSimilarity());
} finally {
  await git.close();
  await dynamoDb.stop();
  await rm(secretDir, { recursive: true, force: true });
}

const rows: Row[] = results.flatMap((result) => result.rows);
const cell = (text: string) => text.replace(/\|/g, '\\|');
const table = [
  '| section | measurement | target | baseline | measured | met |',
  '|---|---|---|---|---|---|',
  ...rows.map(
    (row) =>
      `| ${[row.section, row.name, row.target, row.baseline, row.measured].map(cell).join(' | ')} | ${row.met === undefined ? '—' : row.met ? 'yes' : '**no**'} |`,
  ),
].join('\n');
console.log(table);

const notes = results.flatMap((result) => result.notes);
if (chosen.length > 0 && notes.length > 0) console.log(notes.join('\n'));
const minutes = ((performance.now() - started) / 60_000).toFixed(1);
progress(`done in ${minutes} min`);
if (chosen.length === 0) {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${process.platform}/${process.arch}`;
  await writeFile(
    'bench/RESULTS.md',
    [
      '# Benchmark results',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench\` (${minutes} min) on ${machine}, Node ${process.versions.node}, against DynamoDB Local (in memory, on the same machine). Targets are those of docs/development.md (Benchmarks); each measurement has its baseline from the same run.`,
      '',
      table,
      '',
      '## Notes: targets missed, why, and what it would take',
      '',
      notes.length > 0 ? notes.join('\n') : 'None.',
      '',
    ].join('\n'),
  );
  progress('wrote bench/RESULTS.md');
}
