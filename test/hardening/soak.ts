/**
 * `npm run soak`: the local API over an in-memory DynamoDB Local for a bounded few minutes
 * (SOAK_SECONDS, default 180) with many concurrent students submitting and polling, staff
 * listing, tokens rotating and summaries regenerating. Afterwards: no error answers, no lost or
 * duplicated version, every queued job graded, memory flat. Prints a short report; exits 1 on a
 * broken invariant. Loads only 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDates } from '../support/dates.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const STUDENTS = Number(process.env.SOAK_STUDENTS ?? 24);
const STAFF = 3;
const ROTATORS = 4;

const work = await mkdtemp(join(tmpdir(), 'soak-'));
const { startDynamoDbLocal } = await import('#infra/local/dynamodb-local.ts');
const dynamoDb = await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
process.env.TABLE_PREFIX = 'soak-';
process.env.SIGNING_SECRET_FILE = join(work, 'signing-secret');
process.env.RECORD_KEYS_FILE = join(work, 'record-keys');
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const { ensureSecretFile } = await import('#shared/auth/signing-secret.ts');
const { createTables, useLocalTables } = await import('#infra/local/tables.ts');
const { startTestApi } = await import('../support/http.ts');
const { addMember, createCourse, createTerm, tokenOf } = await import('../support/courses.ts');
const { createUser } = await import('../support/users.ts');
const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
const { dynamo } = await import('#shared/data/client.ts');
const { tableName, tables } = await import('#shared/data/tables.ts');

await ensureSecretFile(process.env.SIGNING_SECRET_FILE);
useLocalTables();
await createTables();

// One repository every student's submission checks out: a passing and a failing test case.
const repositories = join(work, 'repositories');
process.env.FILE_REPOSITORIES_DIR = repositories;
const source = join(work, 'source');
await mkdir(source, { recursive: true });
await writeFile(join(source, 'hello.sh'), 'echo "Hello, World!"\n');
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=soak', '-c', 'user.email=soak@example.edu', ...args], { cwd, stdio: 'ignore' });
git(source, 'init', '-q');
git(source, 'add', '-A');
git(source, 'commit', '-q', '-m', 'Submission');
await mkdir(repositories, { recursive: true });
git(work, 'clone', '-q', '--bare', source, join(repositories, 'soak_hw.git'));

const api = await startTestApi({ workers: 2 });
const instructor = await createUser('faculty', 'instructor');
const term = await createTerm('2026-08-24', 'Fall 2026');
const course = await createCourse(term, instructor);
const base = `/${course.term}/${course.course}`;
const students = await Promise.all(Array.from({ length: STUDENTS }, () => createUser('user', 'student')));
const ta = await createUser('user', 'ta');
const rotators = await Promise.all(Array.from({ length: ROTATORS }, () => createUser('user', 'rotor')));
await addMember(course, ta, 2, null, ['1', '2']);
for (const [index, student] of students.entries()) await addMember(course, student, 4, String(1 + (index % 2)));
const instructorToken = { Authorization: await tokenOf(api, instructor) };
const taToken = { Authorization: await tokenOf(api, ta) };
const studentTokens = await Promise.all(students.map(async (student) => ({ Authorization: await tokenOf(api, student) })));

const upload = await api.postJson(
  `${base}/upload`,
  {
    id: 'soak_hw',
    title: 'Soak homework',
    type: 'Electronic File',
    vcs: { repository_type: 'self-hosted', vcs_path: `file://${repositories}/{$gradeable_id}.git`, vcs_subdirectory: '' },
    dates: openDates(2),
    autograding: {
      test_cases: [
        { name: 'Runs', command: 'sh hello.sh', points_available: 2 },
        { name: 'Greets', command: 'sh hello.sh', points_available: 3, expect: { stdout_contains: 'Hello' } },
      ],
    },
  },
  instructorToken,
);
if (upload.json.status !== 'success') throw new Error(`upload failed: ${upload.text}`);

// ---------------------------------------------------------------------------------------------

const counts = new Map<string, number>();
const errors: string[] = [];
const latencies: number[] = [];
const accepted = new Map<string, number[]>(); // student → versions the API answered
const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls the API, counting the call and its unexpected answers; `Data` is what the caller reads of the answer's data. */
async function call<Data = unknown>(label: string, run: () => Promise<{ json: { status: string }; text: string }>, expectSuccess = true) {
  const started = performance.now();
  const answer = await run().catch((error: Error) => ({ json: { status: 'transport' }, text: String(error) }));
  latencies.push(performance.now() - started);
  count(label);
  if (answer.json.status === 'error' || answer.json.status === 'transport' || (expectSuccess && answer.json.status !== 'success')) {
    errors.push(`${label}: ${answer.text.slice(0, 200)}`);
  }
  return answer as { json: { status: string; data?: Data; message?: string }; text: string };
}

const memory = () => {
  const { heapUsed, rss } = process.memoryUsage();
  return { heapMiB: heapUsed / 2 ** 20, rssMiB: rss / 2 ** 20 };
};
const gc = () => (globalThis as { gc?: () => void }).gc?.();

const deadline = () => Date.now() + SECONDS * 1000;
let stopAt = 0;

async function student(index: number) {
  const token = studentTokens[index]!;
  const versions: number[] = [];
  accepted.set(students[index]!.userId, versions);
  while (Date.now() < stopAt) {
    const key = { 'Idempotency-Key': `soak-${index}-${versions.length}` };
    const submitted = await call('submit', () =>
      api.postJson(`${base}/gradeable/soak_hw/upload`, { vcs_checkout: true, git_repo_id: 'none' }, { ...token, ...key }),
    );
    const version = Number(/version (\d+)/.exec(String(submitted.json.data))?.[1]);
    if (!version) continue;
    versions.push(version);
    // Poll until graded (or time is up), as the editor extension does.
    while (Date.now() < stopAt + 60_000) {
      const values = await call<{ autograding_complete?: boolean; highest_version: number }>('values', () =>
        api.get(`${base}/gradeable/soak_hw/values`, token),
      );
      if (values.json.data?.autograding_complete && values.json.data?.highest_version >= version) break;
      await sleep(250);
    }
  }
}

async function staff(index: number) {
  const tokens = [instructorToken, taToken];
  for (let round = 0; Date.now() < stopAt; round++) {
    const token = tokens[(index + round) % 2]!;
    await call('users', () => api.get(`${base}/users`, token));
    await call('gradeables', () => api.get(`${base}/gradeables`, token));
    const someone = students[(round * 7 + index) % students.length]!.userId;
    await call('attempts', () => api.get(`${base}/gradeable/soak_hw/attempts?user_id=${someone}`, token));
    if (index === 0 && round % 20 === 0)
      await call('generate-summaries', () => api.postJson(`${base}/reports/summaries`, {}, instructorToken));
    await call('list-summaries', () => api.get(`${base}/reports/summaries`, instructorToken));
    await sleep(100);
  }
}

async function rotator(index: number) {
  const user = rotators[index]!;
  let previous: string | undefined;
  while (Date.now() < stopAt) {
    const issued = await call<{ token?: string }>('token', () => api.postJson('/token', { user_id: user.userId, password: user.password }));
    const token = issued.json.data?.token;
    if (token) await call('me', () => api.get('/me', { Authorization: token }));
    if (previous)
      await call('old-token-refused', () => api.get('/me', { Authorization: previous! }), false).then((answer) => {
        if (answer.json.status !== 'fail') errors.push('a rotated-out token still worked');
      });
    previous = token;
    await sleep(300);
  }
}

gc();
const before = memory();
const samples: number[] = [];
const started = Date.now();
stopAt = deadline();
const sampler = setInterval(() => samples.push(memory().heapMiB), 5_000);
process.stdout.write(`soak: ${SECONDS}s, ${STUDENTS} students, ${STAFF} staff, ${ROTATORS} token rotators …\n`);
await Promise.all([
  ...students.map((_, i) => student(i)),
  ...Array.from({ length: STAFF }, (_, i) => staff(i)),
  ...Array.from({ length: ROTATORS }, (_, i) => rotator(i)),
]);
clearInterval(sampler);
const drained = await Promise.race([api.server.gradingQueue.idle().then(() => true), sleep(120_000).then(() => false)]);
const elapsed = (Date.now() - started) / 1000;

// Invariants, from the tables themselves.
const scan = async (table: (typeof tables)[keyof typeof tables]) => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new ScanCommand({ TableName: tableName(table), ExclusiveStartKey, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};
const problems: string[] = [];
const submissions = await scan(tables.submissions);
let versionsTotal = 0;
for (const [userId, answered] of accepted) {
  const item = submissions.find((submission) => submission.ownerId === userId);
  const stored = ((item?.versions ?? []) as { version: number; state: string }[]).map((entry) => entry.version).sort((a, b) => a - b);
  versionsTotal += stored.length;
  const expected = Array.from({ length: stored.length }, (_, i) => i + 1);
  if (JSON.stringify(stored) !== JSON.stringify(expected)) problems.push(`${userId}: versions ${stored.join(',')} are not 1..n`);
  if (JSON.stringify([...answered].sort((a, b) => a - b)) !== JSON.stringify(stored))
    problems.push(`${userId}: answered ${answered.join(',')} but stored ${stored.join(',')}`);
  const ungraded = ((item?.versions ?? []) as { version: number; state: string }[]).filter((entry) => entry.state !== 'graded');
  if (ungraded.length > 0)
    problems.push(`${userId}: versions not graded: ${ungraded.map((entry) => `${entry.version}(${entry.state})`).join(',')}`);
}
const jobs = (await scan(tables.jobs)).filter((job) => /^\d+$/.test(String(job.job))); // the jobs (keyed by ticket), not the counters beside them
const notGraded = jobs.filter((job) => job.state !== 'graded');
if (notGraded.length > 0) problems.push(`${notGraded.length} of ${jobs.length} jobs not graded`);
if (jobs.length !== versionsTotal) problems.push(`${jobs.length} jobs for ${versionsTotal} versions`);
if (!drained) problems.push('the grading queue did not drain within 120 s');

gc();
const after = memory();
await api.close();
await dynamoDb.stop();
await rm(work, { recursive: true, force: true });

const sorted = [...latencies].sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]?.toFixed(0) ?? '-';
const total = [...counts.values()].reduce((a, b) => a + b, 0);
const lines = [
  `Soak report (${elapsed.toFixed(0)} s incl. drain; ${SECONDS} s of load)`,
  `  requests: ${total} (${(total / SECONDS).toFixed(1)}/s) — ${[...counts].map(([k, v]) => `${k} ${v}`).join(', ')}`,
  `  latency ms: p50 ${pct(50)}, p95 ${pct(95)}, p99 ${pct(99)}, max ${pct(100)}`,
  `  versions: ${versionsTotal} submitted and stored, ${jobs.length} jobs, ${jobs.length - notGraded.length} graded`,
  `  error answers: ${errors.length}`,
  `  heap MiB: before ${before.heapMiB.toFixed(1)}, after ${after.heapMiB.toFixed(1)} (samples min ${Math.min(...samples).toFixed(1)}, max ${Math.max(...samples).toFixed(1)}); RSS MiB before ${before.rssMiB.toFixed(0)}, after ${after.rssMiB.toFixed(0)}`,
  `  invariants: ${problems.length === 0 ? 'all held' : `${problems.length} broken`}`,
  ...errors.slice(0, 10).map((error) => `    error: ${error}`),
  ...problems.slice(0, 20).map((problem) => `    broken: ${problem}`),
];
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(errors.length === 0 && problems.length === 0 ? 0 : 1);
