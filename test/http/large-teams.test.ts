/**
 * Teams as large as a gradeable allows: every transaction that writes one item per member (a
 * version's copies, a team change) must fit DynamoDB's limit of items in one transaction, so a
 * request answers success or a clear fail, never an internal error, and writes nothing half.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWrite } from '#shared/data/batch-write.ts';
import { enrollmentItem } from '#shared/data/enrollments.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { userItem } from '#shared/data/users.ts';
import { getItems } from '#shared/data/items.ts';
import { jobRef } from '#shared/data/jobs.ts';
import { queryAll } from '#shared/data/paging.ts';
import { gradeableKey, submissionRef } from '#shared/data/submissions.ts';
import { createTeam } from '#shared/data/teams.ts';
import { MAX_TEAM_MEMBERS, versionClaimsBudget } from '#shared/data/transaction-limits.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { enrollment } from '../support/enrollments.ts';
import { openDates } from '../support/dates.ts';
import { editStoredGradeable, uploadGradeable } from '../support/gradeables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let world: CourseWorld;
/** Students of the course besides the world's two, written straight into the tables (none logs in). */
const extra = Array.from({ length: 100 }, (_, index) => `big_${String(index).padStart(3, '0')}`);

const path = (id: string, rest: string) => `/${world.course.term}/${world.course.course}/gradeable/${id}/${rest}`;
const put = (target: string, body: unknown) =>
  api.call('PUT', target, {
    headers: { 'Content-Type': 'application/json', ...world.tokens.instructor },
    body: JSON.stringify(body),
  });

function filesGradeable(id: string, teamSizeMax: number): Record<string, unknown> {
  return {
    id,
    title: `Files ${id}`,
    type: 'Electronic File',
    dates: openDates(),
    team_gradeable: { team_size_max: teamSizeMax, inherit_from: '' },
    autograding: { test_cases: [{ name: 'Runs', command: 'true', points_available: 1, expect: { exit_code: 0 } }] },
  };
}

/** A team of the world's student and `size - 1` others, set over HTTP. */
async function formTeam(id: string, teamId: string, size: number, others = extra) {
  const members = [world.users.student.userId, ...others.slice(0, size - 1)];
  const answer = await put(path(id, `teams/${teamId}`), { members });
  return { answer, members };
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  const { term, course } = world.course;
  await batchWrite(
    extra.flatMap((userId) => [
      {
        tableName: tableName(tables.users),
        request: {
          PutRequest: {
            Item: userItem({ userId, givenName: 'Given', familyName: 'Family', email: `${userId}@example.edu`, accessLevel: 'user' }),
          },
        },
      },
      { tableName: tableName(tables.enrollments), request: { PutRequest: { Item: enrollmentItem(enrollment(userId, { term, course })) } } },
    ]),
    { parallel: 4 },
  );
}, 120_000);
afterAll(() => api.close());

/** The team's entries (team and members) and its submission, read straight from the tables. */
async function stored(id: string, teamId: string) {
  const { term, course } = world.course;
  const key = gradeableKey(term, course, id);
  const entries = await queryAll({
    TableName: tableName(tables.teams),
    KeyConditionExpression: 'gradeableKey = :key AND begins_with(entry, :member)',
    ExpressionAttributeValues: { ':key': key, ':member': 'member#' },
    ConsistentRead: true,
  });
  const { submission } = await getItems({ submission: submissionRef(term, course, id, teamId) });
  return { entries, submission };
}

/** A presigned POST as a browser sends it: the fields, then the file last (S3 itself, not the API). */
async function uploadTo(target: { url: string; fields: Record<string, string> }, content: string): Promise<number> {
  const form = new FormData();
  for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
  form.append('file', new Blob([content]));
  // eslint-disable-next-line no-restricted-globals -- the local S3 endpoint, not the API
  return (await fetch(target.url, { method: 'POST', body: form })).status;
}

describe('teams as large as a version holds', () => {
  it('the largest team a gradeable accepts is formed, submits (its version, its job, every member’s copy) and is deleted', async () => {
    const larger = await api.postJson(
      `/${world.course.term}/${world.course.course}/upload`,
      filesGradeable(uniqueCode('team'), MAX_TEAM_MEMBERS + 1),
      world.tokens.instructor,
    );
    expect(larger.json, larger.text).toMatchObject({
      status: 'fail',
      message: `team_gradeable.team_size_max must be at most ${MAX_TEAM_MEMBERS}.`,
    });
    const id = uniqueCode('team');
    await uploadGradeable(api, world, filesGradeable(id, MAX_TEAM_MEMBERS));
    const { answer: formed, members } = await formTeam(id, 'all', MAX_TEAM_MEMBERS);
    expect(formed.json, formed.text).toMatchObject({ status: 'success', data: { team_id: 'all' } });
    expect(formed.json.data.members).toHaveLength(MAX_TEAM_MEMBERS);

    const form = new FormData();
    form.append('files', new Blob(['x']), 'a.txt');
    const answer = await api.call('POST', path(id, 'files'), {
      headers: { ...world.tokens.student, 'Idempotency-Key': uniqueCode('key') },
      body: form,
    });
    expect(answer.json, answer.text).toEqual({ status: 'success', data: `Successfully uploaded version 1 for Files ${id}` });
    const { entries, submission } = await stored(id, 'all');
    expect(submission).toMatchObject({ highestVersion: 1, activeVersion: 1 });
    const { job } = await getItems({ job: jobRef(submission?.versions[0]?.ticket ?? -1) });
    expect(job).toMatchObject({ state: 'queued', ownerId: 'all', version: 1 });
    expect(entries.map((entry) => entry.userId).sort()).toEqual([...members].sort());
    expect(entries.every((entry) => entry.activeVersion === 1)).toBe(true);

    // Another gradeable's largest team, without a submission: deleted whole.
    const other = uniqueCode('team');
    await uploadGradeable(api, world, filesGradeable(other, MAX_TEAM_MEMBERS));
    expect((await formTeam(other, 'all', MAX_TEAM_MEMBERS)).answer.json.status).toBe('success');
    const deleted = await api.call('DELETE', path(other, 'teams/all'), { headers: world.tokens.instructor });
    expect(deleted.json, deleted.text).toMatchObject({ status: 'success' });
    expect((await stored(other, 'all')).entries).toEqual([]);
  }, 120_000);

  it('a team larger than teams may be now (formed before) is refused clearly, writing nothing', async () => {
    // A gradeable stored when teams of 100 were accepted, with a team formed then.
    const id = uniqueCode('team');
    await uploadGradeable(api, world, filesGradeable(id, MAX_TEAM_MEMBERS));
    await editStoredGradeable(world.course, id, (document) => {
      document.team_gradeable.team_size_max = 100;
    });
    const refused = await formTeam(id, 'big', MAX_TEAM_MEMBERS + 1);
    expect(refused.answer.json.message).toBe(`Teams of ${id} have at most ${MAX_TEAM_MEMBERS} members.`);
    const members = [world.users.student.userId, ...extra.slice(0, 96)];
    expect(await createTeam(world.course.term, world.course.course, id, 'old', members)).toBe(true);

    const form = new FormData();
    form.append('files', new Blob(['x']), 'a.txt');
    const answer = await api.call('POST', path(id, 'files'), { headers: world.tokens.student, body: form });
    expect(answer.json, answer.text).toEqual({
      status: 'fail',
      message: `A version of a team of 97 members cannot be saved: a team that submits has at most ${MAX_TEAM_MEMBERS} members.`,
    });
    expect((await stored(id, 'old')).submission).toBeUndefined();
  }, 120_000);

  it('a team confirming more uploads than fit beside its members is refused, the uploads left to confirm fewer', async () => {
    const id = uniqueCode('team');
    await uploadGradeable(api, world, filesGradeable(id, MAX_TEAM_MEMBERS));
    expect((await formTeam(id, 'forty', 40)).answer.json.status).toBe('success');
    const declared = await api.postJson(
      path(id, 'files/uploads'),
      { files: Array.from({ length: 64 }, (_, index) => ({ name: `f${index}.txt`, size: 1 })) },
      world.tokens.student,
    );
    expect(declared.json.status, declared.text).toBe('success');
    const forms = declared.json.data.uploads as { upload_id: string; url: string; fields: Record<string, string> }[];
    for (const form of forms) expect(await uploadTo(form, 'x')).toBeLessThan(300);
    const ids = forms.map((form) => form.upload_id);

    const limit = versionClaimsBudget(40);
    const refused = await api.postJson(path(id, 'files'), { upload_ids: ids }, world.tokens.student);
    expect(refused.json, refused.text).toEqual({
      status: 'fail',
      message: `A version of a team of 40 members can confirm at most ${limit} uploads at once.`,
    });
    expect((await stored(id, 'forty')).submission).toBeUndefined();

    const accepted = await api.postJson(path(id, 'files'), { upload_ids: ids.slice(0, limit) }, world.tokens.student);
    expect(accepted.json, accepted.text).toEqual({ status: 'success', data: `Successfully uploaded version 1 for Files ${id}` });
    expect((await stored(id, 'forty')).submission).toMatchObject({ highestVersion: 1 });
  }, 180_000);
});
