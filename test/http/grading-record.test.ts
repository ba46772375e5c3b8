import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { compactVerify, createRemoteJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#shared/data/client.ts';
import { getItems } from '#shared/data/items.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { canonicalSha256, type GradingRecordPayload } from '#shared/grading/grading-record.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { openDates } from '../support/dates.ts';
import { greets, runs, uploadGradeable } from '../support/gradeables.ts';

/**
 * A graded version's record over HTTP: signed by the worker in the transaction that stores the
 * result, answered by GET …/record, verified with stock jose against GET /api/records/jwks. The
 * local API without workers: the test grades its jobs with the worker itself (the sandbox is
 * bubblewrap, as `npm start` runs it), so a version stays queued until it does.
 */
let api: TestApi;
let world: CourseWorld;
const gradeableId = uniqueCode('files');
const base = () => `/${world.course.term}/${world.course.course}`;
const gradeablePath = () => `${base()}/gradeable/${gradeableId}`;
const HELLO = 'echo "Hello, World!"\n';

/** Runs (2 points) and Greets (3 points), whose expected output is wrong: nobody passes it. */
const brokenTestCases = [runs(2), { name: 'Greets', command: 'sh hello.sh', points_available: 3, expect: { stdout: 'Hello World\n' } }];

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  await uploadGradeable(api, world, {
    id: gradeableId,
    title: 'Homework: Hello (files)',
    type: 'Electronic File',
    dates: openDates(),
    autograding: { test_cases: brokenTestCases },
  });
}, 60_000);
afterAll(() => api?.close());

type Persona = keyof CourseWorld['tokens'];

async function submit(persona: 'student' | 'student2', content: string) {
  const form = new FormData();
  form.append('files', new Blob([content]), 'hello.sh');
  const answer = await api.call('POST', `${gradeablePath()}/files`, { headers: world.tokens[persona], body: form });
  expect(answer.json.status, answer.text).toBe('success');
}

/** Grades queued jobs (other test files' too) until the owner's `version` is graded. */
async function gradeUntil(persona: 'student' | 'student2', version: number) {
  for (let round = 0; round < 50; round++) {
    const attempts = (await api.get(`${gradeablePath()}/attempts?user_id=${world.users[persona].userId}`, world.tokens.instructor)).json
      .data as { version: number; grading_state: string }[];
    if (attempts.find((attempt) => attempt.version === version)?.grading_state === 'graded') return;
    await gradeNextJob();
  }
  throw new Error(`version ${version} was not graded`);
}

const readRecord = (persona: Persona, query: string) =>
  api.call('GET', `${gradeablePath()}/record?${query}`, { headers: { ...world.tokens[persona], Prefer: 'http-status' } });

interface RecordAnswer {
  record: string;
  payload: GradingRecordPayload;
  result_sha256: string;
  result?: { version: number; testCases: unknown[]; points: number };
}

async function recordOf(persona: Persona, query: string): Promise<RecordAnswer> {
  const answer = await readRecord(persona, query);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as RecordAnswer;
}

/** The record verified with stock jose against the deployment's published keys, as anyone would verify it. */
async function verified(record: string): Promise<GradingRecordPayload> {
  const keys = createRemoteJWKSet(new URL(`${api.url}/records/jwks`));
  const { payload, protectedHeader } = await compactVerify(record, keys);
  expect(protectedHeader.alg).toBe('EdDSA');
  return JSON.parse(new TextDecoder().decode(payload)) as GradingRecordPayload;
}

const resultsKey = (persona: 'student' | 'student2', version: number) => ({
  submissionKey: `${gradeableKey(world.course.term, world.course.course, gradeableId)}/${world.users[persona].userId}`,
  version: String(version).padStart(6, '0'),
});

describe('a graded version’s record', () => {
  it('is not there before the version is graded, and then verifies against the published keys, naming what was graded', async () => {
    await submit('student', HELLO);
    const queued = await readRecord('student', 'version=1');
    expect([queued.httpStatus, queued.json.message]).toEqual([
      404,
      'Version 1 has no grading record: it is queued, and a record is made when a version is graded.',
    ]);
    await gradeUntil('student', 1);

    const own = await recordOf('student', 'version=1');
    const payload = await verified(own.record);
    expect(payload).toEqual(own.payload);
    expect(payload).toMatchObject({
      course: `${world.course.term}/${world.course.course}`,
      gradeable: gradeableId,
      owner: { user_id: world.users.student.userId },
      version: 1,
      graded: { files: { 'hello.sh': createHash('sha256').update(HELLO).digest('hex') } },
      environment: { sandbox: 'bubblewrap', image: null, image_digest: null, build: null },
    });
    const { gradeable } = await getItems({ gradeable: gradeableRef(world.course.term, world.course.course, gradeableId) });
    expect(payload.test_cases_sha256).toBe(canonicalSha256(gradeable?.autograding));
    // The result as stored hashes as the record says; a student is not shown it (it holds hidden test cases).
    expect(own.result_sha256).toBe(payload.result_sha256);
    expect(own.result).toBeUndefined();
    const staff = await recordOf('instructor', `version=1&user_id=${world.users.student.userId}`);
    expect(staff.record).toBe(own.record);
    expect(canonicalSha256(staff.result)).toBe(payload.result_sha256);
    expect(staff.result?.points).toBe(2);

    const jwks = await api.call('GET', '/records/jwks');
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    expect((jwks.json as unknown as { keys: { kid: string }[] }).keys.map((key) => key.kid)).toContain(
      JSON.parse(Buffer.from(own.record.split('.')[0]!, 'base64url').toString()).kid,
    );
  }, 120_000);

  it('tells a result changed in the table after grading: its hash no longer matches, and a changed record no longer verifies', async () => {
    const before = await recordOf('instructor', `version=1&user_id=${world.users.student.userId}`);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(tables.results),
        Key: resultsKey('student', 1),
        UpdateExpression: 'SET points = :points',
        ExpressionAttributeValues: { ':points': 5 },
      }),
    );
    const after = await recordOf('instructor', `version=1&user_id=${world.users.student.userId}`);
    // The signed record still verifies, and names the hash of the result as graded, not as it is now.
    expect((await verified(after.record)).result_sha256).toBe(before.result_sha256);
    expect(after.result_sha256).not.toBe(before.result_sha256);
    expect(canonicalSha256(after.result)).toBe(after.result_sha256);

    // Whoever changes the record's payload to match cannot sign it.
    const [header, , signature] = before.record.split('.');
    const forged = Buffer.from(JSON.stringify({ ...before.payload, result_sha256: after.result_sha256 })).toString('base64url');
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(tables.results),
        Key: resultsKey('student', 1),
        UpdateExpression: 'SET #record = :record',
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: { ':record': `${header}.${forged}.${signature}` },
      }),
    );
    const tampered = await recordOf('student', 'version=1');
    expect(tampered.payload.result_sha256).toBe(tampered.result_sha256);
    await expect(verified(tampered.record)).rejects.toThrow(/signature verification failed/);
  }, 60_000);

  it('names the test cases a regrade was graded by: a test case changed after grading gives another hash', async () => {
    await submit('student2', HELLO);
    await gradeUntil('student2', 1);
    const first = await recordOf('student2', 'version=1');
    const document = (await api.get(`${base()}/${gradeableId}/download`, world.tokens.instructor)).json.data as Record<string, unknown>;
    const fixed = { ...document, autograding: { ...(document.autograding as object), test_cases: [runs(2), greets(3)] } };
    const put = await api.call('PUT', gradeablePath(), {
      headers: { ...world.tokens.instructor, 'Content-Type': 'application/json' },
      body: JSON.stringify(fixed),
    });
    expect(put.json.status, put.text).toBe('success');
    const regrade = await api.postForm(
      `${gradeablePath()}/regrade`,
      { user_id: world.users.student2.userId, version_to_regrade: '1' },
      world.tokens.instructor,
    );
    expect(regrade.json.status, regrade.text).toBe('success');
    await gradeUntil('student2', 1);
    const again = await recordOf('student2', 'version=1');
    const payload = await verified(again.record);
    const { gradeable } = await getItems({ gradeable: gradeableRef(world.course.term, world.course.course, gradeableId) });
    expect(payload.test_cases_sha256).not.toBe(first.payload.test_cases_sha256);
    expect(payload.test_cases_sha256).toBe(canonicalSha256(gradeable?.autograding));
    // The same files, graded again by the fixed test cases: another result, under its own hash.
    expect(payload.graded).toEqual(first.payload.graded);
    expect(payload.result_sha256).not.toBe(first.payload.result_sha256);
  }, 120_000);

  it("is its team's for a team gradeable: each member reads it, naming the team", async () => {
    const teamGradeable = uniqueCode('pairs');
    await uploadGradeable(api, world, {
      id: teamGradeable,
      title: 'Pairs: Hello (files)',
      type: 'Electronic File',
      dates: openDates(),
      team_gradeable: { team_size_max: 2, inherit_from: '' },
      autograding: { test_cases: [runs(2)] },
    });
    const [a, b] = [world.users.student.userId, world.users.student2.userId];
    const formed = await api.call('PUT', `${base()}/gradeable/${teamGradeable}/teams/duo`, {
      headers: { ...world.tokens.instructor, 'Content-Type': 'application/json' },
      body: JSON.stringify({ members: [a, b] }),
    });
    expect(formed.json.status, formed.text).toBe('success');
    const form = new FormData();
    form.append('files', new Blob([HELLO]), 'hello.sh');
    const submitted = await api.call('POST', `${base()}/gradeable/${teamGradeable}/files`, { headers: world.tokens.student, body: form });
    expect(submitted.json.status, submitted.text).toBe('success');
    const teamRecord = (persona: 'student' | 'student2') =>
      api.call('GET', `${base()}/gradeable/${teamGradeable}/record?version=1`, { headers: world.tokens[persona] });
    for (let round = 0; round < 50 && (await teamRecord('student')).json.status !== 'success'; round++) await gradeNextJob();
    const [first, second] = [(await teamRecord('student')).json.data, (await teamRecord('student2')).json.data] as RecordAnswer[];
    expect(second?.record).toBe(first?.record);
    expect((await verified(first!.record)).owner).toEqual({ team_id: 'duo' });
  }, 120_000);

  it('is refused to another student and to a grader of another section, as their versions are', async () => {
    const other = await readRecord('student2', `version=1&user_id=${world.users.student.userId}`);
    expect([other.httpStatus, other.json.message]).toEqual([400, 'API key and specified user_id are not for the same user.']);
    const mentor = await readRecord('mentor', `version=1&user_id=${world.users.student2.userId}`);
    expect([mentor.httpStatus, mentor.json.message]).toEqual([403, 'You do not grade section 2.']);
    const missing = await readRecord('student', 'version=7');
    expect([missing.httpStatus, missing.json.message]).toEqual([404, 'Version 7 of this submission does not exist.']);
    const noVersion = await readRecord('student', '');
    expect([noVersion.httpStatus, noVersion.json.message]).toEqual([
      400,
      'The field version is required: the version whose grading record to read.',
    ]);
  });
});
