import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#shared/data/client.ts';
import { courseId } from '#shared/data/keys.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { createDelivery } from '#shared/data/webhooks.ts';
import { newMessageId } from '#shared/webhooks/webhook.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, tokenOf, type CourseWorld } from '../support/courses.ts';
import type { WebhookReceiver } from '../support/webhook-receiver.ts';
import { closeAll, startAllowedWebhookReceiver } from '../support/allowed-servers.ts';

/**
 * The per-course limit of webhooks holds against registrations sent at once, and the delivery list
 * is paged (page_size and cursor, the next page named by a Link header) past any length.
 */
let api: TestApi;
let world: CourseWorld;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startAllowedWebhookReceiver();
  api = await startTestApi({ workers: 1 });
  world = await createCourseWorld(api);
}, 60_000);
afterAll(() => closeAll(api, receiver));

const LIMIT_MESSAGE = 'A course can have at most 10 webhooks.';

function register(course: { term: string; course: string }, token: Record<string, string>, path: string) {
  return api.postJson(
    `/${course.term}/${course.course}/webhooks`,
    { url: `${receiver.url}${path}`, events: ['summaries.generated'] },
    token,
  );
}

async function listed(course: { term: string; course: string }, token: Record<string, string>) {
  const answer = await api.get(`/${course.term}/${course.course}/webhooks`, token);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { id: string }[];
}

describe('the limit of webhooks per course', () => {
  it('lets exactly 10 of 16 registrations sent at once through; a removal makes room for one more', async () => {
    const token = world.tokens.instructor;
    const answers = await Promise.all(Array.from({ length: 16 }, (_, index) => register(world.course, token, `/at-once-${index}`)));
    const succeeded = answers.filter((answer) => answer.json.status === 'success');
    expect(succeeded).toHaveLength(10);
    for (const answer of answers.filter((candidate) => candidate.json.status !== 'success'))
      expect(answer.json, answer.text).toEqual({ status: 'fail', message: LIMIT_MESSAGE });
    expect(await listed(world.course, token)).toHaveLength(10);

    const removed = await api.call('DELETE', `/${world.course.term}/${world.course.course}/webhooks/${succeeded[0]!.json.data.id}`, {
      headers: token,
    });
    expect(removed.json.status, removed.text).toBe('success');
    const again = await Promise.all(Array.from({ length: 4 }, (_, index) => register(world.course, token, `/again-${index}`)));
    expect(again.filter((answer) => answer.json.status === 'success')).toHaveLength(1);
    expect(await listed(world.course, token)).toHaveLength(10);
  }, 60_000);

  it('counts webhooks registered before the course kept a count', async () => {
    const token = { Authorization: `Bearer ${await tokenOf(api, world.users.siblingInstructor)}` };
    const { term, course } = world.sibling;
    // Nine webhooks as stored before registrations counted them: no count item.
    for (let index = 0; index < 9; index++) {
      const webhookId = `wh_legacy${String(index).padStart(10, '0')}`;
      await dynamo().send(
        new PutCommand({
          TableName: tableName(tables.webhooks),
          Item: {
            courseId: courseId(term, course),
            term,
            course,
            webhookId,
            url: `${receiver.url}/legacy`,
            events: ['summaries.generated'],
            description: '',
            createdAt: new Date().toISOString(),
            createdBy: world.users.siblingInstructor.userId,
          },
        }),
      );
    }
    const answers = await Promise.all(Array.from({ length: 4 }, (_, index) => register(world.sibling, token, `/late-${index}`)));
    expect(answers.filter((answer) => answer.json.status === 'success')).toHaveLength(1);
    expect(await listed(world.sibling, token)).toHaveLength(10);
    // A removal counts off, so one more fits, and only one.
    const removed = await api.call('DELETE', `/${term}/${course}/webhooks/wh_legacy0000000000`, { headers: token });
    expect(removed.json.status, removed.text).toBe('success');
    const more = await Promise.all(Array.from({ length: 3 }, (_, index) => register(world.sibling, token, `/more-${index}`)));
    expect(more.filter((answer) => answer.json.status === 'success')).toHaveLength(1);
  }, 60_000);
});

describe('the delivery list', () => {
  it('pages past 100 deliveries, newest first, following the Link header; by state too', async () => {
    const { term, course } = world.course;
    const hooks = await listed(world.course, world.tokens.instructor);
    const webhookId = hooks[0]!.id;
    const start = Date.parse('2030-01-01T00:00:00Z');
    const ids: string[] = [];
    for (let index = 0; index < 130; index++) {
      const deliveryId = newMessageId(new Date(start + index * 1000));
      ids.push(deliveryId);
      await createDelivery({
        term,
        course,
        webhookId,
        deliveryId,
        event: 'summaries.generated',
        payload: JSON.stringify({ type: 'summaries.generated', timestamp: new Date(start).toISOString(), data: { term, course } }),
        state: index % 3 === 0 ? 'failed' : 'delivered',
        attempts: [],
        roundStart: 0,
        createdAt: new Date(start + index * 1000).toISOString(),
      });
    }
    const newestFirst = [...ids].reverse();
    const walk = async (first: string) => {
      const pages: string[][] = [];
      let path: string | undefined = first;
      while (path) {
        const answer = await api.get(path, world.tokens.instructor);
        expect(answer.json.status, answer.text).toBe('success');
        pages.push((answer.json.data as { id: string }[]).map((delivery) => delivery.id));
        const link = answer.headers.get('link');
        path = link ? /^<\/api(.*)>; rel="next"$/.exec(link)![1] : undefined;
      }
      return pages;
    };
    const base = `/${term}/${course}/webhooks/${webhookId}/deliveries`;
    const byDefault = await walk(base);
    expect(byDefault.map((page) => page.length)).toEqual([100, 30]);
    expect(byDefault.flat()).toEqual(newestFirst);
    const bySize = await walk(`${base}?page_size=50`);
    expect(bySize.map((page) => page.length)).toEqual([50, 50, 30]);
    expect(bySize.flat()).toEqual(newestFirst);
    const failed = await walk(`${base}?state=failed&page_size=20`);
    expect(failed.map((page) => page.length)).toEqual([20, 20, 4]);
    expect(failed.flat()).toEqual(newestFirst.filter((id) => ids.indexOf(id) % 3 === 0));

    const refused = await api.get(`${base}?cursor=bm90LWEtY3Vyc29y`, world.tokens.instructor);
    expect(refused.json).toEqual({ status: 'fail', message: 'The cursor is not one this delivery list gave out.' });
    const tooBig = await api.get(`${base}?page_size=501`, world.tokens.instructor);
    expect(tooBig.json).toEqual({ status: 'fail', message: 'The page_size must be a whole number from 1 to 500.' });
  }, 60_000);
});
