import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberFieldsOf } from '#shared/courses/roster.ts';
import { auditScopeKey } from '#shared/data/audit.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { courseId } from '#shared/data/keys.ts';
import { queryAll } from '#shared/data/paging.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { addMember, createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Roster changes of one member racing each other over HTTP, many rounds, the stored membership and
 * the course's audit trail checked after each: whatever answered success holds, in some order the
 * audit trail bears out (each entry's `before` is the member as the previous one left them, the
 * last one's `after` is what is stored), and whatever lost answers that the membership changed
 * meanwhile, writing nothing.
 */
let api: TestApi;
let world: CourseWorld;
const ROUNDS = 20;
const CHANGED_MEANWHILE = /^The membership of \S+ changed meanwhile; read it and try again\.$/;
const base = () => `/${world.course.term}/${world.course.course}`;
const H = () => ({ ...world.tokens.instructor, Prefer: 'http-status' });
const put = (userId: string, body: unknown) =>
  api.call('PUT', `${base()}/users/${userId}`, { headers: { 'Content-Type': 'application/json', ...H() }, body: JSON.stringify(body) });
const drop = (userId: string) => api.call('DELETE', `${base()}/users/${userId}`, { headers: H() });
const importCsv = (csv: string) =>
  api.call('POST', `${base()}/users/import`, { headers: { 'Content-Type': 'text/csv', ...H() }, body: csv });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Fields = ReturnType<typeof memberFieldsOf>;
interface Entry {
  readonly entry: string;
  readonly action: string;
  readonly before?: Partial<Fields>;
  readonly after?: Partial<Fields>;
}

const auditOf = async (userId: string): Promise<Entry[]> =>
  (
    await queryAll({
      TableName: tableName(tables.audit),
      KeyConditionExpression: '#scope = :scope',
      ExpressionAttributeNames: { '#scope': 'scope' },
      ExpressionAttributeValues: { ':scope': auditScopeKey({ courseId: courseId(world.course.term, world.course.course) }) },
      ConsistentRead: true,
    })
  ).filter((item) => item.target === userId) as unknown as Entry[];

const stored = async (userId: string): Promise<Fields | undefined> => {
  const { member } = await getItems({ member: enrollmentRef(world.course.term, world.course.course, userId) });
  return member && memberFieldsOf(member);
};

const orders = <T>(items: readonly T[]): T[][] =>
  items.length <= 1
    ? [[...items]]
    : items.flatMap((item, index) => orders(items.filter((_, other) => other !== index)).map((rest) => [item, ...rest]));

/**
 * The states the audit trail's entries lead through from `initial`, in an order where each entry's
 * `before` is what the previous one left and the last state is `final`; undefined when no order is.
 */
function serialStates(initial: Fields, entries: readonly Entry[], final: Fields | undefined): Map<Entry, Fields> | undefined {
  for (const order of orders(entries)) {
    let state: Fields = initial;
    const states = new Map<Entry, Fields>();
    const consistent = order.every((entry) => {
      const held = Object.entries(entry.before ?? {}).every(
        ([key, value]) => JSON.stringify(state[key as keyof Fields]) === JSON.stringify(value),
      );
      state = { ...state, ...entry.after };
      states.set(entry, state);
      return held;
    });
    if (consistent && JSON.stringify(state) === JSON.stringify(final)) return states;
  }
  return undefined;
}

/** A member as PUT and DELETE answer them (the users list's record), in the audit trail's names. */
const answered = (member: Record<string, unknown>): Partial<Fields> => ({
  registration_section: member.reg_section === 'NULL' ? null : (member.reg_section as string),
  rotating_section: member.rot_section === 'NULL' ? null : (member.rot_section as string),
});

/** One change of a round: what it sends, the audit action it records when it holds, and how its answer says whether it held. */
interface Change {
  readonly action: string;
  readonly send: () => Promise<Answer>;
  /** 'held' or 'lost' (anything else fails the test); a PUT's or DELETE's member is checked against the state it led to. */
  readonly outcome: (answer: Answer) => 'held' | 'lost' | 'other';
  readonly member?: (answer: Answer) => Record<string, unknown> | null;
}

const success = (answer: Answer) => answer.json.status === 'success';
/** A PUT or DELETE: held when it answered success, lost when it answered that the membership changed meanwhile. */
const memberChange = (action: string, send: () => Promise<Answer>, member: (answer: Answer) => Record<string, unknown> | null): Change => ({
  action,
  send,
  member,
  outcome: (answer) =>
    success(answer) ? 'held' : answer.httpStatus === 409 && CHANGED_MEANWHILE.test(String(answer.json.message)) ? 'lost' : 'other',
});

/**
 * One round: the changes start together (the first a random few milliseconds later), then the
 * stored member, the audit trail and the answers must agree. Answers how many changes held.
 */
async function round(member: TestUser, initial: Fields, changes: readonly Change[]): Promise<number> {
  const answers = await Promise.all(changes.map(({ send }, index) => pause(index === 0 ? Math.random() * 8 : 0).then(send)));
  const outcomes = changes.map((change, index) => ({ change, answer: answers[index] as Answer }));
  const context = () => JSON.stringify({ initial, answers: answers.map((answer) => answer.text), entries, final });
  const entries = await auditOf(member.userId);
  const final = await stored(member.userId);
  for (const { change, answer } of outcomes) expect(change.outcome(answer), context()).not.toBe('other');
  const held = outcomes.filter(({ change, answer }) => change.outcome(answer) === 'held');
  // One entry per change that held, of its action, and none for a change that lost.
  expect(entries.map((entry) => entry.action).sort(), context()).toEqual(held.map(({ change }) => change.action).sort());
  const states = serialStates(initial, entries, final);
  expect(states, context()).toBeDefined();
  // What a PUT or DELETE answered is the member as its change left them.
  for (const { change, answer } of held) {
    const listed = change.member?.(answer);
    if (!listed) continue;
    const matching = entries.filter((entry) => entry.action === change.action).map((entry) => states?.get(entry));
    expect(
      matching.some((state) => state && Object.entries(answered(listed)).every(([key, value]) => state[key as keyof Fields] === value)),
      context(),
    ).toBe(true);
  }
  return held.length;
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
}, 60_000);
afterAll(() => api.close());

const studentAt = (userId: string, registrationSection: string): Fields =>
  memberFieldsOf({ ...world.course, userId, group: 4, registrationSection, rotatingSection: null, gradingSections: [] });

describe('roster changes of one member at once', () => {
  it(`a drop racing a change of another field: what answered success holds, the audit trail says what happened (${ROUNDS} rounds)`, async () => {
    const students = await Promise.all(Array.from({ length: ROUNDS }, () => createUser('user', 'racer')));
    for (const [index, student] of students.entries()) {
      await addMember(world.course, student, 4, '1');
      await round(student, studentAt(student.userId, '1'), [
        memberChange(
          'member.dropped',
          () => drop(student.userId),
          (answer) => answer.json.data?.member ?? null,
        ),
        memberChange(
          'member.changed',
          () => put(student.userId, { rotating_section: `r${index}` }),
          (answer) => answer.json.data ?? null,
        ),
      ]);
    }
  }, 120_000);

  it(`a grader's grading sections taken away racing a change of their rotating section: the revocation holds or is refused (${ROUNDS} rounds)`, async () => {
    const graders = await Promise.all(Array.from({ length: ROUNDS }, () => createUser('user', 'grader')));
    for (const [index, grader] of graders.entries()) {
      await addMember(world.course, grader, 3, null, ['1', '2']);
      const initial = memberFieldsOf({
        ...world.course,
        userId: grader.userId,
        group: 3,
        registrationSection: null,
        rotatingSection: null,
        gradingSections: ['1', '2'],
      });
      await round(grader, initial, [
        memberChange(
          'member.changed',
          () => put(grader.userId, { grading_sections: ['1'] }),
          (answer) => answer.json.data ?? null,
        ),
        memberChange(
          'member.changed',
          () => put(grader.userId, { rotating_section: `r${index}` }),
          (answer) => answer.json.data ?? null,
        ),
      ]);
    }
  }, 120_000);

  it(`a class-list import racing a drop of one of its students: a row that was not rejected holds (${ROUNDS} rounds)`, async () => {
    const students = await Promise.all(Array.from({ length: ROUNDS }, () => createUser('user', 'listed')));
    for (const student of students) {
      await addMember(world.course, student, 4, '1');
      const csv = `user_id,first_name,last_name,email,registration_section,group\n${student.userId},Given,Family,${student.email},2,Student\n`;
      await round(student, studentAt(student.userId, '1'), [
        memberChange(
          'member.dropped',
          () => drop(student.userId),
          (answer) => answer.json.data?.member ?? null,
        ),
        {
          action: 'member.changed',
          send: () => importCsv(csv),
          outcome: (answer) => {
            if (!success(answer)) return 'other';
            const data = answer.json.data as { updated: number; rejected: { reason: string }[] };
            if (data.updated === 1 && data.rejected.length === 0) return 'held';
            const refused =
              data.rejected.length === 1 &&
              data.rejected[0]?.reason === `${student.userId} changed while the list was imported; import it again.`;
            return data.updated === 0 && refused ? 'lost' : 'other';
          },
        },
      ]);
    }
  }, 120_000);
});
