import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxEntries } from '#shared/data/webhook-outbox.ts';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import type { WebhookReceiver } from '../support/webhook-receiver.ts';
import { greets, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedGitServer, startAllowedWebhookReceiver } from '../support/allowed-servers.ts';

/**
 * Fault injection: the webhook queue refuses every message for a while, after the grade (or the
 * summaries switch) is recorded. The outcome stands, its event waits in the outbox, and once the
 * queue accepts again the relay delivers it: once, with the id it was recorded with.
 */
let api: TestApi;
let world: CourseWorld;
let receiver: WebhookReceiver;
let git: GitServer;
let base: string;

beforeAll(async () => {
  receiver = await startAllowedWebhookReceiver();
  git = await startAllowedGitServer({ 'hello-student': { 'hello.sh': 'echo "Hello, World!"\n' } });
  api = await startTestApi({ workers: 1 });
  world = await createCourseWorld(api);
  base = `/${world.course.term}/${world.course.course}`;
}, 60_000);
afterAll(() => closeAll(api, receiver, git));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function register(path: string, events: string[]) {
  const answer = await api.postJson(`${base}/webhooks`, { url: `${receiver.url}${path}`, events }, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { id: string };
}

async function deliveriesOf(webhookId: string) {
  const answer = await api.get(`${base}/webhooks/${webhookId}/deliveries`, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as { id: string; state: string; event: string }[];
}

/** Several relay runs while the queue refuses (each refused), the last one surely past the outbox's grace. */
async function refusedRelayRuns() {
  await sleep(2_500);
  for (let run = 0; run < 2; run++) await expect(api.server.webhookOutbox.run()).rejects.toThrow(/refused/);
}

describe('the webhook queue refusing messages', () => {
  it('loses no submission.graded event: the grade stands, the event waits in the outbox and is delivered once the queue accepts', async () => {
    const hook = await register('/graded', ['submission.graded']);
    await uploadGradeable(
      api,
      world,
      selfHostedGradeableJson('hello', `${git.url}/{$gradeable_id}-student.git`, {
        title: 'Hello',
        autograding: { test_cases: [greets(5)] },
      }),
    );

    api.server.webhookQueue.refuseSends(true);
    try {
      const path = `${base}/gradeable/hello`;
      const submitted = await api.postForm(`${path}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
      expect(submitted.json.status, submitted.text).toBe('success');
      let values: { autograding_complete?: boolean; total_points?: number } = {};
      for (let poll = 0; poll < 400 && !values.autograding_complete; poll++) {
        await sleep(150);
        values = (await api.get(`${path}/values`, world.tokens.student)).json.data;
      }
      expect(values).toMatchObject({ autograding_complete: true, total_points: 5 });
      await refusedRelayRuns();
      const waiting = (await outboxEntries(100)).entries.map((entry) => JSON.parse(entry.body));
      expect(waiting).toMatchObject([{ kind: 'event', event: { type: 'submission.graded', data: { gradeable_id: 'hello', points: 5 } } }]);
      expect(receiver.received.filter((request) => request.path === '/graded')).toEqual([]);
      expect(await deliveriesOf(hook.id)).toEqual([]);
    } finally {
      api.server.webhookQueue.refuseSends(false);
    }

    const [request] = await receiver.waitFor('/graded', 1, 30_000);
    const payload = JSON.parse(request!.body) as { type: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({ type: 'submission.graded', data: { gradeable_id: 'hello', version: 1, points: 5 } });
    // The grade was never rolled back.
    expect((await api.get(`${base}/gradeable/hello/values`, world.tokens.student)).json.data).toMatchObject({ total_points: 5 });
    await api.server.webhookQueue.idle();
    await api.server.webhookOutbox.run();
    await api.server.webhookQueue.idle();
    expect(receiver.received.filter((received) => received.path === '/graded')).toHaveLength(1);
    const deliveries = await deliveriesOf(hook.id);
    expect(deliveries).toMatchObject([{ id: request!.headers['webhook-id'], state: 'delivered', event: 'submission.graded' }]);
    expect((await outboxEntries(100)).entries).toEqual([]);
  }, 120_000);

  it('loses no summaries.generated event either', async () => {
    const hook = await register('/summaries', ['summaries.generated']);
    api.server.webhookQueue.refuseSends(true);
    let generation: string;
    try {
      const generated = await api.postJson(`${base}/reports/summaries`, {}, world.tokens.instructor);
      expect(generated.json.status, generated.text).toBe('success');
      generation = generated.json.data.generation as string;
      await refusedRelayRuns();
      expect((await outboxEntries(100)).entries).toHaveLength(1);
      expect(receiver.received.filter((request) => request.path === '/summaries')).toEqual([]);
    } finally {
      api.server.webhookQueue.refuseSends(false);
    }
    const [request] = await receiver.waitFor('/summaries', 1, 30_000);
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'summaries.generated', data: { generation } });
    await api.server.webhookQueue.idle();
    expect(await deliveriesOf(hook.id)).toMatchObject([{ id: request!.headers['webhook-id'], state: 'delivered' }]);
    expect((await outboxEntries(100)).entries).toEqual([]);

    // A replay the queue refuses is kept as well: its attempt goes out once the queue accepts.
    const deliveryId = request!.headers['webhook-id'] as string;
    api.server.webhookQueue.refuseSends(true);
    try {
      const replay = await api.postJson(`${base}/webhooks/${hook.id}/deliveries/${deliveryId}/replay`, {}, world.tokens.instructor);
      expect(replay.json.status, replay.text).toBe('success');
      await refusedRelayRuns();
      expect((await outboxEntries(100)).entries).toHaveLength(1);
    } finally {
      api.server.webhookQueue.refuseSends(false);
    }
    const [, again] = await receiver.waitFor('/summaries', 2, 30_000);
    expect(again!.headers['webhook-id']).toBe(deliveryId);
  }, 60_000);
});
