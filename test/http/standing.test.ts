import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { claimJob } from '#shared/queue/claim.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { daysFromNow, openDates } from '../support/dates.ts';
import { anyRepository } from '../support/shared-git.ts';
import { greets, runs, selfHostedVcs, uploadGradeable } from '../support/gradeables.ts';

/**
 * Where a student stands, over HTTP: the queue estimate `values` gives while the active version is
 * queued, and a submission's representation (`Prefer: return=representation`) on both submission
 * routes, every answer checked against its route's contract. The workers are driven by the test.
 */
let api: TestApi;
let world: CourseWorld;

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  const budget = await api.call('PUT', `/${world.course.term}/${world.course.course}/late-days`, {
    headers: { 'Content-Type': 'application/json', ...world.tokens.instructor },
    body: JSON.stringify({ default_student_late_days: 4 }),
  });
  expect(budget.json.status).toBe('success');
}, 120_000);
afterAll(() => api.close());

type Persona = keyof CourseWorld['tokens'];
const path = (id: string, action: string) => `/${world.course.term}/${world.course.course}/gradeable/${id}/${action}`;

async function vcsGradeable(dates: Record<string, unknown> = {}) {
  const id = uniqueCode('hw');
  await uploadGradeable(api, world, {
    id,
    title: `Homework ${id}`,
    type: 'Electronic File',
    vcs: selfHostedVcs(anyRepository('{$user_id}')),
    dates: { ...openDates(5), ...dates },
    autograding: { test_cases: [runs(2), greets(3)] },
  });
  return id;
}

async function filesGradeable(dates: Record<string, unknown> = {}) {
  const id = uniqueCode('files');
  await uploadGradeable(api, world, {
    id,
    title: `Files ${id}`,
    type: 'Electronic File',
    dates: { ...openDates(), ...dates },
    autograding: { test_cases: [{ name: 'Has a readme', command: 'test -f README.md', points_available: 1, expect: { exit_code: 0 } }] },
  });
  return id;
}

const submitVcs = (id: string, persona: Persona, headers: Record<string, string> = {}) =>
  api.postJson(path(id, 'upload'), { vcs_checkout: true, git_repo_id: 'none' }, { ...world.tokens[persona], ...headers });

function submitFiles(id: string, persona: Persona, headers: Record<string, string> = {}) {
  const form = new FormData();
  form.append('files', new Blob(['# Readme\n']), 'README.md');
  return api.call('POST', path(id, 'files'), { headers: { ...world.tokens[persona], ...headers }, body: form });
}

const values = async (id: string, persona: Persona) => (await api.get(path(id, 'values'), world.tokens[persona])).json.data;

/**
 * Claims every queued job, as workers that then vanish would, and forgets the students' counts of
 * jobs queued or being graded that those jobs still hold: each test starts with an empty queue.
 */
async function drain(): Promise<void> {
  while (await claimJob()) {
    // claimed and left
  }
  const TableName = tableName(tables.jobs);
  const { Items = [] } = await dynamo().send(
    new ScanCommand({ TableName, FilterExpression: 'begins_with(job, :load)', ExpressionAttributeValues: { ':load': 'load#' } }),
  );
  await Promise.all(Items.map((item) => dynamo().send(new DeleteCommand({ TableName, Key: { job: item.job } }))));
}

describe('the queue estimate in values', () => {
  it('is null while no job ended lately, then estimated from the jobs graded since, and null once the version is graded', async () => {
    await drain();
    const id = await vcsGradeable();
    expect((await submitVcs(id, 'student')).json.status).toBe('success');
    expect(await values(id, 'student')).toMatchObject({ is_queued: true, queue_position: 1, queue_eta_seconds: null });

    expect(await gradeNextJob()).toBe('graded');
    const graded = await values(id, 'student');
    expect(graded).toMatchObject({ autograding_complete: true, queue_position: -1, queue_eta_seconds: null });

    // Two versions queued behind each other: the second waits about twice as long as the first.
    expect((await submitVcs(id, 'student2')).json.status).toBe('success');
    expect((await submitVcs(id, 'instructor')).json.status).toBe('success');
    const first = await values(id, 'student2');
    const second = await values(id, 'instructor');
    expect([first.queue_position, second.queue_position]).toEqual([1, 2]);
    expect(first.queue_eta_seconds).toEqual(expect.any(Number));
    expect(second.queue_eta_seconds).toBeGreaterThanOrEqual(first.queue_eta_seconds as number);
    expect(second.queue_eta_seconds).toBeGreaterThan(0);
    await drain();
  }, 60_000);
});

describe('a submission with Prefer: return=representation', () => {
  const representation = {
    version: 1,
    message: expect.stringMatching(/^Successfully uploaded version 1 for /),
    days_late: 0,
    late_days_charged: 0,
    late_days_remaining: 4,
    queue_position: expect.any(Number),
    queue_eta_seconds: expect.toBeOneOf([null, expect.any(Number)]),
  };

  it('answers the version from git, its lateness and place in the queue, naming the preference applied', async () => {
    await drain();
    const id = await vcsGradeable();
    const answer = await submitVcs(id, 'student', { Prefer: 'return=representation' });
    expect(answer.json).toEqual({ status: 'success', data: { ...representation, queue_position: 1 } });
    expect(answer.headers.get('Preference-Applied')).toBe('return=representation');
    // Both preferences at once: both named.
    const both = await submitVcs(id, 'student2', { Prefer: 'http-status, return=representation' });
    expect([both.httpStatus, both.json.data.version, both.headers.get('Preference-Applied')]).toEqual([
      200,
      1,
      'http-status, return=representation',
    ]);
    await drain();
  });

  it('answers the version of files the same way', async () => {
    await drain();
    const id = await filesGradeable();
    const answer = await submitFiles(id, 'student', { Prefer: 'return=representation' });
    expect(answer.json).toEqual({ status: 'success', data: { ...representation, queue_position: 1 } });
    expect(answer.headers.get('Preference-Applied')).toBe('return=representation');
    await drain();
  });

  it('says how late a late version is and what it is charged', async () => {
    await drain();
    const due = daysFromNow(-1.5);
    const id = await vcsGradeable({ submission_due_date: due, team_lock_date: due, late_days: 3 });
    const answer = await submitVcs(id, 'student', { Prefer: 'return=representation' });
    // 2 days late, within the gradeable's 3 and the course's 4: charged, 2 left.
    expect(answer.json.data).toMatchObject({ version: 1, days_late: 2, late_days_charged: 2, late_days_remaining: 2 });
    expect(await values(id, 'student')).toMatchObject({ days_late: 2, late_days_charged: 2, late_days_remaining: 2 });
    await drain();
  });

  it('answers a repeat under the same Idempotency-Key with the first version', async () => {
    await drain();
    const id = await vcsGradeable();
    const headers = { Prefer: 'return=representation', 'Idempotency-Key': uniqueCode('key') };
    const first = await submitVcs(id, 'student', headers);
    const again = await submitVcs(id, 'student', headers);
    expect([first.json.data.version, again.json.data.version, again.json.data.message]).toEqual([1, 1, first.json.data.message]);
    await drain();
  });

  it('answers the reference’s message exactly as before without the header, on both routes', async () => {
    await drain();
    const vcs = await vcsGradeable();
    const files = await filesGradeable();
    for (const answer of [await submitVcs(vcs, 'student'), await submitFiles(files, 'student')]) {
      expect(answer.json).toEqual({
        status: 'success',
        data: expect.stringMatching(/^Successfully uploaded version 1 for (Homework|Files) /),
      });
      expect(answer.headers.get('Preference-Applied')).toBeNull();
    }
    // Another preference alone changes nothing either.
    const other = await submitVcs(vcs, 'student', { Prefer: 'return=minimal' });
    expect([other.json.data, other.headers.get('Preference-Applied')]).toEqual([
      `Successfully uploaded version 2 for Homework ${vcs}`,
      null,
    ]);
    await drain();
  });
});
