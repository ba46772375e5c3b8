import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditScopeKey } from '#shared/data/audit.ts';
import { courseRef } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { courseId } from '#shared/data/keys.ts';
import { queryAll } from '#shared/data/paging.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';

/**
 * Changes of one course setting at the same moment, over HTTP, many rounds, the stored course and
 * its audit trail checked after each: every change that answered success is in the trail once,
 * each entry's `before` is the value the previous one left, and the last one's `after` is what is
 * stored. A change made from a value another one replaced meanwhile is made again from a fresh read.
 */
let api: TestApi;
let world: CourseWorld;
const ROUNDS = 15;
const coursePath = () => `/courses/${world.course.term}/${world.course.course}`;
const H = () => ({ ...world.tokens.instructor, Prefer: 'http-status' });
const setting = (name: string, entry: string) => api.postJson(`${coursePath()}/config`, { name, entry }, H());
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Entry {
  readonly entry: string;
  readonly action: string;
  readonly target: string;
  readonly before?: Record<string, unknown>;
  readonly after?: Record<string, unknown>;
}

const trail = async (): Promise<Entry[]> =>
  (await queryAll({
    TableName: tableName(tables.audit),
    KeyConditionExpression: '#scope = :scope',
    ExpressionAttributeNames: { '#scope': 'scope' },
    ExpressionAttributeValues: { ':scope': auditScopeKey({ courseId: courseId(world.course.term, world.course.course) }) },
    ConsistentRead: true,
  })) as unknown as Entry[];

const storedCourse = async () => {
  const { course } = await getItems({ course: courseRef(world.course.term, world.course.course) });
  if (!course) throw new Error('the course is gone');
  return course;
};

/** Runs the requests together (the first a random few milliseconds later); answers them and the entries they added. */
async function together(requests: readonly (() => Promise<Answer>)[]): Promise<{ answers: Answer[]; added: Entry[] }> {
  const seen = new Set((await trail()).map((entry) => entry.entry));
  const answers = await Promise.all(requests.map((send, index) => pause(index === 0 ? Math.random() * 8 : 0).then(send)));
  const added = (await trail()).filter((entry) => !seen.has(entry.entry)).sort((a, b) => (a.entry < b.entry ? -1 : 1));
  return { answers, added };
}

/** Whether some order of the entries of `name` leads from `initial` to `final`, each entry's `before` being the value before it. */
function chains(name: string, initial: unknown, entries: readonly Entry[], final: unknown): boolean {
  const orders = <T>(items: readonly T[]): T[][] =>
    items.length <= 1 ? [[...items]] : items.flatMap((item, i) => orders(items.filter((_, j) => j !== i)).map((rest) => [item, ...rest]));
  return orders(entries).some((order) => {
    let value = initial;
    for (const entry of order) {
      if (entry.before?.[name] !== value) return false;
      value = entry.after?.[name];
    }
    return value === final;
  });
}

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
}, 60_000);
afterAll(() => api.close());

describe('course settings changed at the same moment', () => {
  for (const { name, field, values } of [
    { name: 'timezone', field: 'timeZone', values: ['Europe/Paris', 'Asia/Tokyo', 'America/Chicago'] },
    { name: 'default_student_late_days', field: 'defaultStudentLateDays', values: ['2', '5', '7'] },
    { name: 'course_name', field: 'displayName', values: ['Course A', 'Course B', 'Course C'] },
  ] as const) {
    it(`${name}: every change that answered success is in the audit trail from the value it replaced (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const initial = (await storedCourse())[field];
        // Three values, one of them possibly the current one (which changes nothing and records nothing when read first).
        const { answers, added } = await together(values.map((value) => () => setting(name, value)));
        for (const answer of answers) expect(answer.json.status, answer.text).toBe('success');
        const final = (await storedCourse())[field];
        const entries = added.filter((entry) => entry.action === 'course.setting-changed' && entry.target === name);
        const typed = (value: string) => (name === 'default_student_late_days' ? Number(value) : value);
        const context = JSON.stringify({ round, initial, final, entries });
        // Each value other than the initial one was set once; the initial one, only when it came after another.
        expect(entries.length, context).toBeGreaterThanOrEqual(values.filter((value) => typed(value) !== initial).length);
        expect(entries.length, context).toBeLessThanOrEqual(values.length);
        expect(chains(name, initial, entries, final), context).toBe(true);
      }
    }, 120_000);
  }

  it(`archiving twice at once records one archiving; so does unarchiving (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [verb, action] of [
        ['archive', 'course.archived'],
        ['unarchive', 'course.unarchived'],
      ] as const) {
        const { answers, added } = await together([0, 1].map(() => () => api.postJson(`${coursePath()}/config/${verb}`, {}, H())));
        for (const answer of answers) expect(answer.json.status, answer.text).toBe('success');
        expect(added.filter((entry) => entry.action === action).length, JSON.stringify({ round, verb, added })).toBe(1);
        expect((await storedCourse()).archived).toBe(verb === 'archive');
      }
    }
  }, 120_000);
});
