import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courseId } from '#shared/courses/course.ts';
import { auditScopeKey } from '#shared/data/audit.ts';
import { dynamo } from '#shared/data/client.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { teamSubmissionCopies } from '#shared/data/teams.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { addMember, createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { daysFromNow } from '../support/dates.ts';
import { uploadGradeable, vcsGradeableJson } from '../support/gradeables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Teams of a team gradeable over HTTP: instructors list, form, change and delete them; a change
 * never takes a team's submissions away from a member nor merges two teams' submissions, and two
 * changes at once never put a student on two teams.
 */
let api: TestApi;
let world: CourseWorld;
/** Students of the course besides the world's two. */
let extra: TestUser[];
const base = () => `/${world.course.term}/${world.course.course}/gradeable`;
const teams = (gradeable: string, teamId = '') => `${base()}/${gradeable}/teams${teamId ? `/${teamId}` : ''}`;

const put = (path: string, body: unknown, headers = world.tokens.instructor) =>
  api.call('PUT', path, { headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
const remove = (path: string, headers = world.tokens.instructor) => api.call('DELETE', path, { headers });

async function entries(gradeable: string): Promise<Record<string, Record<string, unknown>>> {
  const output = await dynamo().send(
    new QueryCommand({
      TableName: tableName(tables.teams),
      KeyConditionExpression: 'gradeableKey = :key',
      ExpressionAttributeValues: { ':key': gradeableKey(world.course.term, world.course.course, gradeable) },
      ConsistentRead: true,
    }),
  );
  return Object.fromEntries((output.Items ?? []).map((item) => [item.entry as string, item]));
}

/** A team's submission as grading leaves it (version 1 active, 2 days late). */
async function submitFor(gradeable: string, teamId: string) {
  const { term, course } = world.course;
  await dynamo().send(
    new PutCommand({
      TableName: tableName(tables.submissions),
      Item: {
        gradeableKey: gradeableKey(term, course, gradeable),
        ownerId: teamId,
        term,
        course,
        gradeableId: gradeable,
        highestVersion: 1,
        activeVersion: 1,
        versions: [
          { version: 1, submittedAt: daysFromNow(-1), submittedBy: world.users.student.userId, daysLate: 2, ticket: 1, state: 'graded' },
        ],
      },
    }),
  );
}

async function upload(id: string, team: { size: number } | undefined) {
  const json = vcsGradeableJson(id, { dueInDays: 3, lateDays: 2, team: team !== undefined });
  await uploadGradeable(api, world, team ? { ...json, team_gradeable: { team_size_max: team.size, inherit_from: '' } } : json);
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  extra = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(() => createUser('user', 'teamed')));
  await Promise.all(extra.map((user) => addMember(world.course, user, 4, '1')));
  await upload('solo', undefined);
  await upload('pairs', { size: 3 });
  await upload('race', { size: 2 });
  await upload('imported', { size: 2 });
}, 120_000);
afterAll(() => api.close());

describe('teams of a team gradeable', () => {
  it('forms a team: the answer, the list, the member entries and the audit entry', async () => {
    const [a, b] = [world.users.student.userId, world.users.student2.userId];
    const formed = await put(teams('pairs', 'alpha'), { members: [a, b] });
    expect(formed.json, formed.text).toEqual({ status: 'success', data: { team_id: 'alpha', members: [a, b] } });

    const listed = await api.get(teams('pairs'), world.tokens.instructor);
    expect(listed.json.data).toEqual([{ team_id: 'alpha', members: [a, b] }]);

    const items = await entries('pairs');
    expect(items['team#alpha']).toMatchObject({ teamId: 'alpha', members: [a, b] });
    expect(items[`member#${a}`]).toMatchObject({
      teamId: 'alpha',
      userId: a,
      members: [a, b],
      studentKey: `${courseId(world.course.term, world.course.course)}#${a}`,
      gradeableId: 'pairs',
      activeVersion: 0,
    });

    const trail = await dynamo().send(
      new QueryCommand({
        TableName: tableName(tables.audit),
        KeyConditionExpression: '#scope = :scope',
        ExpressionAttributeNames: { '#scope': 'scope' },
        ExpressionAttributeValues: { ':scope': auditScopeKey({ courseId: courseId(world.course.term, world.course.course) }) },
        ConsistentRead: true,
      }),
    );
    expect(trail.Items).toContainEqual(
      expect.objectContaining({
        actor: world.users.instructor.userId,
        action: 'team.created',
        target: 'pairs/alpha',
        after: { members: [a, b] },
      }),
    );

    // A student may be named by a comma-separated list too; a member who stays keeps their entry.
    const page = await api.get(`${teams('pairs')}?page_size=1`, world.tokens.instructor);
    expect(page.json.data).toHaveLength(1);
  });

  it('moves a student from a team without submissions, and deletes a team left empty', async () => {
    const [c, d] = [extra[0]!.userId, extra[1]!.userId];
    expect((await put(teams('pairs', 'beta'), { members: [c] })).json.status).toBe('success');
    const moved = await put(teams('pairs', 'gamma'), { members: [c, d] });
    expect(moved.json.status, moved.text).toBe('success');
    const items = await entries('pairs');
    expect(items['team#beta']).toBeUndefined();
    expect(items[`member#${c}`]).toMatchObject({ teamId: 'gamma', members: [c, d] });

    // One member leaves a team that has no submission; their entry goes.
    const shrunk = await put(teams('pairs', 'gamma'), { members: [d] });
    expect(shrunk.json.status, shrunk.text).toBe('success');
    expect((await entries('pairs'))[`member#${c}`]).toBeUndefined();
  });

  it('keeps submissions with their team: no member taken away, no two teams merged, no team with submissions deleted', async () => {
    const [e, f, g, h] = extra.slice(2, 6).map((user) => user.userId) as [string, string, string, string];
    expect((await put(teams('pairs', 'delta'), { members: [e, f] })).json.status).toBe('success');
    expect((await put(teams('pairs', 'epsilon'), { members: [g] })).json.status).toBe('success');
    await submitFor('pairs', 'delta');
    const before = await entries('pairs');

    const taken = await put(teams('pairs', 'delta'), { members: [e] });
    expect(taken.json).toEqual({
      status: 'fail',
      message: `Team delta has submissions: removing ${f} would take them away from them.`,
    });
    const merged = await put(teams('pairs', 'epsilon'), { members: [g, f] });
    expect(merged.json).toEqual({
      status: 'fail',
      message: `${f} is on team delta, which has submissions: moving them would merge two teams' submissions.`,
    });
    const deleted = await remove(teams('pairs', 'delta'));
    expect(deleted.json).toEqual({ status: 'fail', message: 'Team delta has submissions and cannot be deleted.' });
    expect(await entries('pairs')).toEqual(before);

    // A student on no team joins it, with a copy of the team's active version (their late days read it).
    const joined = await put(teams('pairs', 'delta'), { members: [e, f, h] });
    expect(joined.json.status, joined.text).toBe('success');
    expect((await entries('pairs'))[`member#${h}`]).toMatchObject({ teamId: 'delta', activeVersion: 1, activeDaysLate: 2 });
    // A submission that read the members before the newcomer joined cannot leave them without its copy.
    const stale = transactWrite(
      teamSubmissionCopies({ ...world.course, gradeableId: 'pairs', ownerId: 'delta' }, [e, f], { version: 2, daysLate: 0 }),
    );
    await expect(stale).rejects.toSatisfy((error) => failedConditions(error).length === 2);
    expect((await entries('pairs'))[`member#${e}`]).toMatchObject({ members: [e, f, h], activeVersion: 1 });

    expect((await remove(teams('pairs', 'epsilon'))).json).toEqual({ status: 'success', data: null });
    expect((await entries('pairs'))[`member#${g}`]).toBeUndefined();
    expect((await remove(teams('pairs', 'epsilon'))).json).toEqual({
      status: 'fail',
      message: 'Team epsilon does not exist for this gradeable.',
    });
  });

  it('refuses every bad request with its reason and changes nothing', async () => {
    const before = await entries('pairs');
    const [a] = [world.users.student.userId];
    const refusals: [string, unknown, string][] = [
      [teams('pairs', 'zeta'), { members: [] }, 'A team needs at least one member: delete the team instead.'],
      [teams('pairs', 'zeta'), { members: [a, a] }, `${a} is listed twice.`],
      [teams('pairs', 'zeta'), { members: extra.slice(4, 8).map((user) => user.userId) }, 'Teams of pairs have at most 3 members.'],
      [teams('pairs', 'zeta'), { members: [world.users.ta.userId] }, `${world.users.ta.userId} is not a student of this course.`],
      [teams('pairs', 'zeta'), { members: [world.users.dropped.userId] }, `${world.users.dropped.userId} is not a student of this course.`],
      [teams('pairs', 'zeta'), { members: ['nobody-here'] }, 'nobody-here is not a student of this course.'],
      [teams('pairs', 'zeta'), { members: ['../x'] }, '../x is not a student of this course.'],
      [teams('pairs', 'zeta'), { members: 5 }, 'The field members must be a list of user ids.'],
      [teams('pairs', 'a.b'), { members: [a] }, 'A team id is 1 to 64 letters, digits, _ or -.'],
      [teams('solo', 'zeta'), { members: [a] }, 'solo is not a team gradeable: it has no teams.'],
      [teams('missing', 'zeta'), { members: [a] }, 'Gradeable does not exist'],
    ];
    for (const [path, body, message] of refusals) {
      const answer = await put(path, body);
      expect(answer.json, `${path} ${JSON.stringify(body)}`).toEqual({ status: 'fail', message });
    }
    expect((await api.get(teams('solo'), world.tokens.instructor)).json).toEqual({
      status: 'fail',
      message: 'solo is not a team gradeable: it has no teams.',
    });
    expect((await remove(teams('solo', 'zeta'))).json.message).toBe('solo is not a team gradeable: it has no teams.');
    expect((await put(teams('pairs', 'zeta'), { members: [a] }, world.tokens.student)).json.status).toBe('fail');
    expect((await put(teams('pairs', 'zeta'), { members: [a] }, world.tokens.ta)).json.status).toBe('fail');
    expect(await entries('pairs')).toEqual(before);
  });

  it('never puts a student on two teams when changes race', async () => {
    const shared = extra[6]!.userId;
    const partners = [world.users.student, world.users.student2, ...extra.slice(0, 6)].map((user) => user.userId);
    const answers = await Promise.all(partners.map((partner, index) => put(teams('race', `r${index}`), { members: [shared, partner] })));
    for (const answer of answers) {
      if (answer.json.status !== 'success') {
        expect(answer.json).toEqual({ status: 'fail', message: 'The teams changed while this change was being saved: try again.' });
      }
    }
    expect(answers.some((answer) => answer.json.status === 'success')).toBe(true);

    const items = Object.values(await entries('race'));
    const teamEntries = items.filter((item) => (item.entry as string).startsWith('team#'));
    const holding = teamEntries.filter((team) => (team.members as string[]).includes(shared));
    expect(holding).toHaveLength(1);
    // Every member entry names the one team whose entry lists it, with that team's members.
    for (const team of teamEntries) {
      for (const member of team.members as string[]) {
        const entry = items.find((item) => item.entry === `member#${member}`);
        expect(entry, member).toMatchObject({ teamId: team.teamId, members: team.members });
      }
    }
    const listedMembers = teamEntries.flatMap((team) => team.members as string[]);
    expect(items.filter((item) => (item.entry as string).startsWith('member#'))).toHaveLength(listedMembers.length);
    expect(new Set(listedMembers).size).toBe(listedMembers.length);
  }, 120_000);
});

describe('teams from a team list', () => {
  const importList = (gradeable: string, csv: string, query = '', headers = world.tokens.instructor) =>
    api.call('POST', `${teams(gradeable)}/import${query}`, { headers: { 'Content-Type': 'text/csv', ...headers }, body: csv });
  const trail = async () => {
    const output = await dynamo().send(
      new QueryCommand({
        TableName: tableName(tables.audit),
        KeyConditionExpression: '#scope = :scope',
        ExpressionAttributeNames: { '#scope': 'scope' },
        ExpressionAttributeValues: { ':scope': auditScopeKey({ courseId: courseId(world.course.term, world.course.course) }) },
        ConsistentRead: true,
      }),
    );
    return (output.Items ?? []).filter((item) => String(item.target).startsWith('imported/'));
  };
  const listed = async () => (await api.get(teams('imported'), world.tokens.instructor)).json.data;

  it('sets each team as PUT would, rejecting bad rows and refused teams by line; a dry run writes nothing, and a list again changes nothing', async () => {
    const [a, b, c] = extra.slice(0, 3).map((user) => user.userId) as [string, string, string];
    const csv = [
      'user_id,team_id',
      `${a},t1`,
      `${b},t1`,
      '',
      `${c},t2`,
      'not an id!,t2',
      `${a},t2`,
      `nobody-${Date.now()},t3`,
      `${world.users.ta.userId},t4`,
    ].join('\n');
    const rejected = [
      { line: 6, reason: 'Invalid user id "not an id!".' },
      { line: 7, reason: `User ${a} appears more than once; the first row counts.` },
      { line: 8, reason: expect.stringMatching(/^Team t3: /) },
      { line: 9, reason: expect.stringMatching(/^Team t4: /) },
    ];
    const dry = await importList('imported', csv, '?dry_run=true');
    expect(dry.json, dry.text).toEqual({ status: 'success', data: { dry_run: true, created: 2, updated: 0, unchanged: 0, rejected } });
    expect(await entries('imported')).toEqual({});

    const done = await importList('imported', csv);
    expect(done.json, done.text).toEqual({ status: 'success', data: { dry_run: false, created: 2, updated: 0, unchanged: 0, rejected } });
    expect(await listed()).toEqual([
      { team_id: 't1', members: [a, b] },
      { team_id: 't2', members: [c] },
    ]);
    expect((await trail()).map((entry) => [entry.action, entry.target]).sort()).toEqual([
      ['team.created', 'imported/t1'],
      ['team.created', 'imported/t2'],
    ]);

    const again = await importList('imported', csv);
    expect(again.json.data).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect(await trail()).toHaveLength(2);

    // A student moves to another team; a team with submissions keeps its members, and says why.
    await submitFor('imported', 't2');
    const moved = await importList('imported', ['team_id,user_id', `t1,${a}`, `t2,${b}`].join('\n'));
    expect(moved.json.data).toEqual({
      dry_run: false,
      created: 0,
      updated: 1,
      unchanged: 0,
      rejected: [{ line: 3, reason: `Team t2: Team t2 has submissions: removing ${c} would take them away from them.` }],
    });
    expect(await listed()).toEqual([
      { team_id: 't1', members: [a] },
      { team_id: 't2', members: [c] },
    ]);
  });

  it('refuses a list it cannot read as a whole, and a gradeable without teams, changing nothing', async () => {
    const before = await entries('imported');
    const cases: [string, string, string][] = [
      ['imported', 'team_id\nt9', 'The team list header lacks the column(s) user_id.'],
      ['imported', '   ', 'Send the team list as a text/csv body or as the multipart file field team_list.'],
      ['imported', 'team_id,user_id\n"t9,x', expect.stringMatching(/^The team list is not readable CSV: /) as unknown as string],
      [
        'imported',
        ['team_id,user_id', ...Array.from({ length: 301 }, (_, team) => `t${team},${extra[0]!.userId}x${team}`)].join('\n'),
        'The team list has more than 300 teams; split it.',
      ],
      ['solo', `team_id,user_id\nt9,${extra[0]!.userId}`, 'solo is not a team gradeable: it has no teams.'],
    ];
    for (const [gradeable, csv, message] of cases) {
      const answer = await importList(gradeable, csv);
      expect(answer.json, csv.slice(0, 40)).toEqual({ status: 'fail', message });
    }
    expect(await entries('imported')).toEqual(before);
  });
});
