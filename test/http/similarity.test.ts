/**
 * Similarity reports over HTTP: the labelled class of test/fixtures/similarity/ submitted as real
 * files submissions, one student each, a run asked for by the instructor (answered 202, queued on
 * the summaries queue), read until done, its pairs most similar first and paged; starter code's
 * matches left out; who may ask and read; bad input refused writing nothing; and a run a stopped
 * server left resumed.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeQueues } from '#infra/local/recovery.ts';
import { dynamo } from '#shared/data/client.ts';
import { courseId } from '#shared/data/keys.ts';
import { auditEntries } from '#shared/data/audit.ts';
import { createSimilarityRun } from '#shared/data/similarity-runs.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { newSimilarityRunId } from '#shared/similarity/runs.ts';
import {
  addMember,
  createCourse,
  createCourseWorld,
  createTerm,
  tokenOf,
  uniqueCode,
  type CourseWorld,
  type Persona,
} from '../support/courses.ts';
import { deleteObjects, listObjects } from '#shared/storage/objects.ts';
import { openDates } from '../support/dates.ts';
import { uploadGradeable } from '../support/gradeables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';
import { closeAll, startAllowedWebhookReceiver } from '../support/allowed-servers.ts';
import type { WebhookReceiver } from '../support/webhook-receiver.ts';
import { COPIES, COPY_PAIRS, FIXTURES } from '../support/similarity-class.ts';

let api: TestApi;
let world: CourseWorld;

/** The class: a user per fixture, enrolled, with a token. */
const students = new Map<string, { userId: string; token: Record<string, string> }>();
const fixtureOf = (userId: string) => [...students].find(([, student]) => student.userId === userId)?.[0];

let gradeable: string;

async function filesGradeable(course: { term: string; course: string } = world.course): Promise<string> {
  const id = uniqueCode('sim');
  await uploadGradeable(
    api,
    world,
    {
      id,
      title: `Similarity ${id}`,
      type: 'Electronic File',
      dates: openDates(),
      autograding: { test_cases: [{ name: 'Runs', command: 'true', points_available: 1, expect: { exit_code: 0 } }] },
    },
    course,
  );
  return id;
}

const path = (id: string, rest = '') => `/${world.course.term}/${world.course.course}/gradeable/${id}/similarity${rest}`;

async function submit(
  id: string,
  token: Record<string, string>,
  files: readonly { name: string; content: string }[],
  course: { term: string; course: string } = world.course,
) {
  const form = new FormData();
  for (const file of files) form.append('files', new Blob([file.content]), file.name);
  const answer = await api.call('POST', `/${course.term}/${course.course}/gradeable/${id}/files`, { headers: token, body: form });
  expect(answer.json.status, answer.text).toBe('success');
}

const ask = (id: string, body: unknown, persona: Persona = 'instructor') =>
  api.postJson(path(id), body, { ...world.tokens[persona], Prefer: 'http-status' });

interface Side {
  owner: string;
  version: number;
  semester: string;
  course: string;
  gradeable_id: string;
}
interface Pair {
  pair_id: string;
  rank: number;
  left: Side;
  right: Side;
  similarity: number;
  longest_fragment: number;
  total_overlap: number;
}

/** Reads the run until it ends (done or failed), each answer checked against the contract. */
async function untilEnded(id: string, runId: string, query = '') {
  for (let attempt = 0; attempt < 1200; attempt++) {
    const answer = await api.get(path(id, `/${runId}${query}`), world.tokens.instructor);
    expect(answer.json.status, answer.text).toBe('success');
    if (answer.json.data.status === 'done' || answer.json.data.status === 'failed') return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} did not end`);
}

async function runToEnd(id: string, body: unknown = {}) {
  const posted = await ask(id, body);
  expect(posted.httpStatus, posted.text).toBe(202);
  expect(posted.json.data).toMatchObject({ status: 'queued' });
  const runId = posted.json.data.run_id as string;
  const ended = await untilEnded(id, runId, '?page_size=500');
  expect(ended.json.data.status, ended.text).toBe('done');
  return { runId, data: ended.json.data as { submissions: number; pairs_kept: number; pairs: Pair[]; next_cursor: string | null } };
}

const fixturesOf = (pair: Pair) => [fixtureOf(pair.left.owner), fixtureOf(pair.right.owner)];
const isCopyPair = (pair: Pair) => fixturesOf(pair).every((name) => name !== undefined && COPIES.includes(name));

/** Every item of the course's similarity partition: runs and pairs. */
async function similarityItems() {
  const answer = await dynamo().send(
    new QueryCommand({
      TableName: tableName(tables.summaries),
      KeyConditionExpression: 'courseId = :partition',
      ExpressionAttributeValues: { ':partition': `${courseId(world.course.term, world.course.course)}#similarity` },
    }),
  );
  return answer.Items ?? [];
}

let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startAllowedWebhookReceiver();
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  for (const { student } of FIXTURES) {
    const user = await createUser('user', student);
    await addMember(world.course, user, 4, '1');
    students.set(student, { userId: user.userId, token: { Authorization: await tokenOf(api, user) } });
  }
  gradeable = await filesGradeable();
  for (const { name, student, content } of FIXTURES) await submit(gradeable, students.get(student)!.token, [{ name, content }]);
}, 120_000);

afterAll(() => closeAll(api, receiver));

describe('a similarity report of a class with three disguised copies among independent solutions', () => {
  it('ranks the six pairs among the original and its copies first, each side a student and version of this gradeable', async () => {
    const { data } = await runToEnd(gradeable);
    expect(data.submissions).toBe(FIXTURES.length);
    const top = data.pairs.slice(0, COPY_PAIRS);
    expect(top.map(fixturesOf)).toHaveLength(COPY_PAIRS);
    expect(top.filter(isCopyPair)).toHaveLength(COPY_PAIRS);
    expect(top.map(({ rank }) => rank)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const pair of data.pairs) {
      for (const side of [pair.left, pair.right])
        expect(side).toMatchObject({ version: 1, semester: world.course.term, course: world.course.course, gradeable_id: gradeable });
    }
    const similarities = data.pairs.map(({ similarity }) => similarity);
    expect(similarities).toEqual([...similarities].sort((one, other) => other - one));
    expect(top.at(-1)!.similarity).toBeGreaterThan(2 * data.pairs[COPY_PAIRS]!.similarity);
  });

  it("sends similarity.completed to the course's webhooks once the run is done, naming the run and no student", async () => {
    const hook = await api.postJson(
      `/${world.course.term}/${world.course.course}/webhooks`,
      { url: `${receiver.url}/similarity`, events: ['similarity.completed'] },
      world.tokens.instructor,
    );
    expect(hook.json.status, hook.text).toBe('success');
    const { runId } = await runToEnd(gradeable);
    const [request] = await receiver.waitFor('/similarity', 1, 30_000);
    const event = JSON.parse(request!.body) as { type: string; data: Record<string, unknown> };
    expect(event).toMatchObject({
      type: 'similarity.completed',
      data: { gradeable_id: gradeable, run_id: runId, submissions: FIXTURES.length, pairs_kept: expect.any(Number) },
    });
    for (const { userId } of students.values()) expect(request!.body).not.toContain(userId);
  });

  it('pages the pairs most similar first, a Link and next_cursor to the next page, the pages together the whole list', async () => {
    const { runId, data } = await runToEnd(gradeable);
    const seen: Pair[] = [];
    let query = '?page_size=4';
    for (let page = 0; page < 20; page++) {
      const answer = await api.get(path(gradeable, `/${runId}${query}`), world.tokens.instructor);
      expect(answer.json.status, answer.text).toBe('success');
      seen.push(...(answer.json.data.pairs as Pair[]));
      const next = answer.json.data.next_cursor as string | null;
      if (next === null) break;
      expect(answer.headers.get('link')).toContain(`cursor=${next}`);
      query = `?page_size=4&cursor=${next}`;
    }
    expect(seen.map(({ pair_id }) => pair_id)).toEqual(data.pairs.map(({ pair_id }) => pair_id));
  });

  it('leaves out the matches of starter code every student was given', async () => {
    const id = await filesGradeable();
    const starter = FIXTURES.find(({ student }) => student === 'original')!;
    // Two students hand in the starter file unchanged beside their own solutions.
    const [one, other] = ['student-a', 'student-b'].map((name) => FIXTURES.find(({ student }) => student === name)!);
    for (const own of [one!, other!]) {
      await submit(id, students.get(own.student)!.token, [
        { name: 'given.py', content: starter.content },
        { name: own.name, content: own.content },
      ]);
    }
    const without = (await runToEnd(id)).data.pairs;
    const withStarter = (await runToEnd(id, { starter_code: [{ path: 'given.py', content: starter.content }] })).data.pairs;
    expect(without[0]!.similarity).toBeGreaterThan(0.5);
    expect(withStarter[0]?.similarity ?? 0).toBeLessThan(without[0]!.similarity / 2);
  });
});

describe('compared with last term', () => {
  it("finds a copy of last term's solution from last term's stored fingerprints, never pairing last term's solutions with each other", async () => {
    const lastTerm = await createTerm('2026-01-12', 'Spring 2026');
    const lastCourse = await createCourse(lastTerm, world.users.instructor);
    const earlier = await filesGradeable(lastCourse);
    const byName = (student: string) => FIXTURES.find((fixture) => fixture.student === student)!;
    // Last term: the original and one of its copies (a pair of last term's, never to be reported now).
    for (const student of ['original', 'copy-reordered']) {
      await addMember(lastCourse, { ...world.users.student, userId: students.get(student)!.userId }, 4, '1');
      await submit(earlier, students.get(student)!.token, [{ name: byName(student).name, content: byName(student).content }], lastCourse);
    }
    const lastPath = `/${lastTerm}/${lastCourse.course}/gradeable/${earlier}/similarity`;
    const lastRunId = (await api.postJson(lastPath, {}, world.tokens.instructor)).json.data.run_id as string;
    let lastStatus = '';
    for (let attempt = 0; attempt < 600 && lastStatus !== 'done'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      lastStatus = (await api.get(`${lastPath}/${lastRunId}`, world.tokens.instructor)).json.data.status as string;
    }
    expect(lastStatus).toBe('done');
    // Last term's files are gone (expired): only their stored fingerprints can find the copy.
    const lastFiles = await listObjects(`versions/${lastTerm}/`);
    expect(lastFiles).toHaveLength(2);
    await deleteObjects(lastFiles.map(({ key }) => key));

    // This term: a renamed copy of last term's original among independent solutions.
    const id = await filesGradeable();
    for (const student of ['copy-renamed', 'student-a', 'student-b', 'student-c'])
      await submit(id, students.get(student)!.token, [{ name: byName(student).name, content: byName(student).content }]);
    const named = { semester: lastTerm, course: lastCourse.course, gradeable_id: earlier };
    const { data } = await runToEnd(id, { compare_with: [named] });
    expect(data).toMatchObject({ submissions: 4, fingerprints_reused: 2, compare_with: [named] });
    const first = data.pairs[0]!;
    expect(first.left).toMatchObject({ owner: students.get('copy-renamed')!.userId, semester: world.course.term, gradeable_id: id });
    expect([students.get('original')!.userId, students.get('copy-reordered')!.userId]).toContain(first.right.owner);
    expect(first.right).toMatchObject({ semester: lastTerm, course: lastCourse.course, gradeable_id: earlier });
    expect(first.similarity).toBeGreaterThan(0.5);
    // Every pair has this term's side first: none is between last term's solutions.
    for (const pair of data.pairs) expect(pair.left.semester, JSON.stringify(pair)).toBe(world.course.term);
  });

  it('refuses, naming it, a gradeable of a course the caller does not teach, of a later term, or none, writing nothing', async () => {
    const other = await createCourse(world.course.term, world.users.otherInstructor);
    const laterTerm = await createTerm('2027-01-11', 'Spring 2027');
    const later = await createCourse(laterTerm, world.users.instructor);
    const before = await similarityItems();
    const refused = async (named: Record<string, string>) => (await ask(gradeable, { compare_with: [named] })).json;
    expect(await refused({ semester: other.term, course: other.course, gradeable_id: 'hw' })).toEqual({
      status: 'fail',
      message: `You are not an instructor of ${other.term}/${other.course}: compare_with names gradeables of your own courses only.`,
    });
    expect(await refused({ semester: laterTerm, course: later.course, gradeable_id: 'hw' })).toEqual({
      status: 'fail',
      message: `Term ${laterTerm} begins after this one: compare_with names gradeables of this or earlier terms.`,
    });
    expect(await refused({ semester: world.course.term, course: world.course.course, gradeable_id: 'no_such_gradeable' })).toEqual({
      status: 'fail',
      message: `No gradeable no_such_gradeable in ${world.course.term}/${world.course.course} to compare with.`,
    });
    expect(await refused({ semester: world.course.term, course: world.course.course, gradeable_id: gradeable })).toEqual({
      status: 'fail',
      message: 'compare_with names the gradeable compared itself.',
    });
    expect(await similarityItems()).toHaveLength(before.length);
  });
});

describe("a pair's fragments and a reviewer's decision", () => {
  it('shows the passages both sides share, file by file, with their lines as submitted', async () => {
    const { runId, data } = await runToEnd(gradeable);
    const pair = data.pairs.find(
      (candidate) => fixturesOf(candidate).includes('original') && fixturesOf(candidate).includes('copy-renamed'),
    )!;
    const answer = await api.get(path(gradeable, `/${runId}/pairs/${pair.pair_id}`), world.tokens.instructor);
    expect(answer.json.status, answer.text).toBe('success');
    const detail = answer.json.data as Pair & {
      fragments: {
        left: { path: string; first_line: number; last_line: number; lines: string[] };
        right: { path: string; first_line: number; last_line: number; lines: string[] };
      }[];
    };
    expect(detail).toMatchObject({ pair_id: pair.pair_id, similarity: pair.similarity, decision: null, revision: 0 });
    expect(detail.fragments.length).toBeGreaterThan(0);
    for (const fragment of detail.fragments) {
      for (const which of ['left', 'right'] as const) {
        const side = fragment[which];
        const fixture = FIXTURES.find(({ name }) => name === side.path)!;
        expect(fixtureOf(detail[which].owner)).toBe(fixture.student);
        expect(side.lines).toEqual(fixture.content.split('\n').slice(side.first_line - 1, side.last_line));
      }
    }
    // The copy renamed every identifier: the passages match as code, not as text.
    const longest = detail.fragments.reduce((one, other) =>
      other.left.last_line - other.left.first_line > one.left.last_line - one.left.first_line ? other : one,
    );
    expect(longest.left.lines.length).toBeGreaterThan(5);
    expect(longest.left.lines).not.toEqual(longest.right.lines);
  });

  it('records a decision only at the revision read: two reviewers racing, round after round, one wins and the audit trail holds only what held', async () => {
    const second = await createUser('faculty', 'reviewer');
    await addMember(world.course, second, 1);
    const reviewers = { first: world.tokens.instructor, second: { Authorization: await tokenOf(api, second) } };
    const { runId } = await runToEnd(gradeable);
    const pairPath = path(gradeable, `/${runId}/pairs/1`);
    const trail = async () =>
      (await auditEntries({ courseId: courseId(world.course.term, world.course.course) }, 500, undefined)).entries.filter(
        ({ target }) => target === `${gradeable}/${runId}/1`,
      );
    for (let round = 0; round < 15; round++) {
      const read = (await api.get(pairPath, reviewers.first)).json.data as { revision: number };
      expect(read.revision).toBe(round);
      const bodies = {
        first: { decision: 'confirmed', note: `first ${round}`, revision: read.revision },
        second: { decision: 'dismissed', note: `second ${round}`, revision: read.revision },
      };
      const answers = await Promise.all(
        (['first', 'second'] as const).map(async (who) => ({
          who,
          answer: await api.call('PATCH', pairPath, {
            headers: { ...reviewers[who], 'Content-Type': 'application/json', Prefer: 'http-status' },
            body: JSON.stringify(bodies[who]),
          }),
        })),
      );
      const won = answers.filter(({ answer }) => answer.json.status === 'success');
      const lost = answers.filter(({ answer }) => answer.json.status !== 'success');
      expect(won, JSON.stringify(answers.map(({ answer }) => answer.json))).toHaveLength(1);
      expect(lost[0]!.answer.httpStatus).toBe(409);
      expect(lost[0]!.answer.json.message).toMatch(
        /^(The pair changed since revision \d+: it is at revision \d+\.|Another reviewer decided this pair at the same moment\.) Reload it and decide again\.$/,
      );
      const winner = won[0]!.who;
      const after = (await api.get(pairPath, reviewers.first)).json.data;
      expect(after).toMatchObject({
        revision: round + 1,
        decision: {
          decision: bodies[winner].decision,
          note: bodies[winner].note,
          decided_by: winner === 'first' ? world.users.instructor.userId : second.userId,
        },
      });
      const entries = await trail();
      expect(entries).toHaveLength(round + 1);
      expect(entries[0]).toMatchObject({
        action: 'similarity-pair.decided',
        after: { decision: bodies[winner].decision, note: bodies[winner].note, revision: round + 1 },
      });
    }
  });

  it('a stale revision is refused and changes nothing', async () => {
    const { runId } = await runToEnd(gradeable);
    const pairPath = path(gradeable, `/${runId}/pairs/2`);
    const decide = (body: unknown) =>
      api.call('PATCH', pairPath, {
        headers: { ...world.tokens.instructor, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await decide({ decision: 'confirmed', revision: 0 })).json.status).toBe('success');
    const before = (await api.get(pairPath, world.tokens.instructor)).json.data;
    expect((await decide({ decision: 'dismissed', revision: 0 })).json).toEqual({
      status: 'fail',
      message: 'The pair changed since revision 0: it is at revision 1. Reload it and decide again.',
    });
    expect((await decide({ decision: 'maybe', revision: 1 })).json).toEqual({
      status: 'fail',
      message: 'A decision is dismissed or confirmed, not maybe.',
    });
    expect((await decide({ decision: 'dismissed' })).json.message).toBe(
      'Give revision: the revision of the pair you read, so that a decision made since is not undone.',
    );
    expect((await api.get(pairPath, world.tokens.instructor)).json.data).toEqual(before);
  });
});

describe('who asks for and reads a report', () => {
  it.each<Persona>(['ta', 'mentor', 'student', 'otherInstructor'])('%s is refused both, and nothing is written', async (persona) => {
    const before = await similarityItems();
    const asked = await ask(gradeable, {}, persona);
    expect(asked.json).toEqual({ status: 'fail', message: "You don't have access to this endpoint." });
    const read = await api.get(path(gradeable, `/${newSimilarityRunId()}`), world.tokens[persona]);
    expect(read.json).toEqual({ status: 'fail', message: "You don't have access to this endpoint." });
    const pair = await api.get(path(gradeable, `/${newSimilarityRunId()}/pairs/1`), world.tokens[persona]);
    expect(pair.json).toEqual({ status: 'fail', message: "You don't have access to this endpoint." });
    const listed = await api.get(path(gradeable), world.tokens[persona]);
    expect(listed.json).toEqual({ status: 'fail', message: "You don't have access to this endpoint." });
    const decided = await api.call('PATCH', path(gradeable, `/${newSimilarityRunId()}/pairs/1`), {
      headers: { ...world.tokens[persona], 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'confirmed', revision: 0 }),
    });
    expect(decided.json).toEqual({ status: 'fail', message: "You don't have access to this endpoint." });
    expect(await similarityItems()).toHaveLength(before.length);
  });

  it('a run of another gradeable, or none, reads as none', async () => {
    const { runId } = await runToEnd(gradeable, { min_match_tokens: 100000 });
    const other = await filesGradeable();
    const answer = await api.get(path(other, `/${runId}`), { ...world.tokens.instructor, Prefer: 'http-status' });
    expect(answer.httpStatus).toBe(404);
    expect(answer.json.message).toBe(`No similarity run ${runId} of this gradeable.`);
  });
});

describe("listing a gradeable's runs", () => {
  it("lists them newest first with their options, progress, requester and counts, paged, the pages together the whole list, and no other gradeable's", async () => {
    const id = await filesGradeable();
    for (const student of ['original', 'copy-renamed']) {
      const { name, content } = FIXTURES.find((fixture) => fixture.student === student)!;
      await submit(id, students.get(student)!.token, [{ name, content }]);
    }
    const asked = [
      { language: 'python' },
      { min_match_tokens: 50, starter_code: [{ path: 'given.py', content: 'print(1)\n' }] },
      { compare_with: [{ semester: world.course.term, course: world.course.course, gradeable_id: gradeable }] },
    ];
    const runIds: string[] = [];
    for (const body of asked) runIds.push((await runToEnd(id, body)).runId);
    // Another gradeable's run, asked for meanwhile, is not among them.
    await runToEnd(gradeable, { min_match_tokens: 100000 });

    const whole = await api.get(path(id), world.tokens.instructor);
    expect(whole.json.status, whole.text).toBe('success');
    const runs = whole.json.data as Record<string, unknown>[];
    expect(runs.map(({ run_id }) => run_id)).toEqual([...runIds].reverse());
    const createdAt = runs.map(({ created_at }) => created_at as string);
    expect(createdAt).toEqual([...createdAt].sort().reverse());
    expect(runs[0]).toMatchObject({
      status: 'done',
      requested_by: world.users.instructor.userId,
      gradeable_id: id,
      language: null,
      min_match_tokens: null,
      starter_files: 0,
      compare_with: [{ semester: world.course.term, course: world.course.course, gradeable_id: gradeable }],
      submissions: 2,
      fingerprinted: 2,
      pairs_kept: expect.any(Number),
      skipped: 0,
      finished_at: expect.any(String),
    });
    expect(runs[1]).toMatchObject({ language: null, min_match_tokens: 50, starter_files: 1, compare_with: [] });
    expect(runs[2]).toMatchObject({ language: 'python', min_match_tokens: null, starter_files: 0, pairs_kept: 1 });
    for (const run of runs) expect(run).not.toHaveProperty('skipped_versions');

    const seen: unknown[] = [];
    let query = '?page_size=2';
    for (let page = 0; page < 5; page++) {
      const answer = await api.get(path(id, query), world.tokens.instructor);
      expect(answer.json.status, answer.text).toBe('success');
      seen.push(...(answer.json.data as unknown[]));
      const link = answer.headers.get('link');
      if (link === null) break;
      query = `?${new URL(/<([^>]+)>/.exec(link)![1]!, 'http://x').searchParams}`;
    }
    expect(seen).toEqual(runs);
  });

  it('answers no runs for a gradeable never compared, and refuses a gradeable that does not exist and a cursor it never gave out', async () => {
    const id = await filesGradeable();
    expect((await api.get(path(id), world.tokens.instructor)).json).toEqual({ status: 'success', data: [] });
    expect((await api.get(path('no_such_gradeable'), world.tokens.instructor)).json).toEqual({
      status: 'fail',
      message: 'No gradeable no_such_gradeable in this course to compare.',
    });
    expect((await api.get(path(id, '?cursor=WyJ4Il0'), world.tokens.instructor)).json).toEqual({
      status: 'fail',
      message: 'The cursor is not one this list of runs gave out.',
    });
  });
});

describe('bad input', () => {
  it.each([
    [{ language: 'cobol' }, 'Similarity compares python, java, c, cpp, javascript or text, not cobol.'],
    [
      { starter_code: [{ path: 'a.py' }] },
      'The field starter_code must be a list of {"path": string, "content": string} (at most 20, their contents at most 200000 characters together).',
    ],
    [
      { starter_code: [{ path: 'a.py', content: 'x'.repeat(200_001) }] },
      'The field starter_code must be a list of {"path": string, "content": string} (at most 20, their contents at most 200000 characters together).',
    ],
    [{ min_match_tokens: -1 }, 'The field min_match_tokens must be a whole number from 0 to 100000.'],
  ])('%j is refused, writing nothing', async (body, message) => {
    const before = await similarityItems();
    const answer = await ask(gradeable, body);
    expect(answer.json).toEqual({ status: 'fail', message });
    expect(await similarityItems()).toHaveLength(before.length);
  });

  it('a gradeable that does not exist is refused, writing nothing', async () => {
    const before = await similarityItems();
    const answer = await ask('no_such_gradeable', {});
    expect(answer.json).toEqual({ status: 'fail', message: 'No gradeable no_such_gradeable in this course to compare.' });
    expect(await similarityItems()).toHaveLength(before.length);
  });
});

describe('a server started again', () => {
  it('resumes a run a stopped server left queued or running, each compared once', async () => {
    const record = (state: 'queued' | 'running') => ({
      runId: newSimilarityRunId(),
      term: world.course.term,
      course: world.course.course,
      gradeableId: gradeable,
      state,
      requestedBy: world.users.instructor.userId,
      createdAt: new Date().toISOString(),
      attempts: state === 'running' ? 1 : 0,
      ...(state === 'running' ? { startedAt: new Date().toISOString(), leaseUntil: Date.now() - 1 } : {}),
    });
    const queued = record('queued');
    const running = record('running');
    await createSimilarityRun(queued);
    await createSimilarityRun(running);
    const resumed = await resumeQueues(api.server, 0);
    expect(resumed.courseJobs).toBe(2);
    for (const { runId } of [queued, running]) {
      const ended = await untilEnded(gradeable, runId);
      expect(ended.json.data, runId).toMatchObject({ status: 'done', submissions: FIXTURES.length });
    }
    expect((await resumeQueues(api.server, 0)).courseJobs).toBe(0);
  });
});
