import { mkdir, writeFile } from 'node:fs/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import type { ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver.ts';
import { greets, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { closeAll, startAllowedGitServer, startAllowedWebhookReceiver } from '../support/allowed-servers.ts';

/**
 * Webhooks end to end over HTTP: an instructor registers a receiver on loopback (allowed by
 * WEBHOOK_ALLOWED_HOSTS), events of the course reach it signed by the Standard Webhooks scheme,
 * a receiver answering 500 sees the retries with growing gaps, a delivery that keeps failing is
 * kept as failed and replayed, and the instructor reads every attempt.
 */
const RETRY_SCHEDULE = [0.3, 0.6, 1.2];
let api: TestApi;
let world: CourseWorld;
let receiver: WebhookReceiver;
let git: GitServer;
let base: string;

beforeAll(async () => {
  receiver = await startAllowedWebhookReceiver();
  git = await startAllowedGitServer({ [`hello-${'student'}`]: { 'hello.sh': 'echo "Hello, World!"\n' } });
  vi.stubEnv('WEBHOOK_RETRY_SCHEDULE', RETRY_SCHEDULE.join(','));
  api = await startTestApi({ workers: 1 });
  world = await createCourseWorld(api);
  base = `/${world.course.term}/${world.course.course}`;
}, 60_000);
afterAll(() => closeAll(api, receiver, git));

async function register(path: string, events: string[] | string, headers = world.tokens.instructor) {
  return api.postJson(`${base}/webhooks`, { url: `${receiver.url}${path}`, events, description: `receiver ${path}` }, headers);
}

function verified(request: ReceivedRequest, secret: string) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}

const generateSummaries = () => api.postJson(`${base}/reports/summaries`, {}, world.tokens.instructor);

async function deliveriesOf(webhookId: string, query = '') {
  const answer = await api.get(`${base}/webhooks/${webhookId}/deliveries${query}`, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as {
    id: string;
    event: string;
    state: string;
    attempts: { status: number | null; error: string | null }[];
    payload: unknown;
  }[];
}

async function settled(webhookId: string, deliveryId: string) {
  for (let poll = 0; poll < 100; poll++) {
    const delivery = (await deliveriesOf(webhookId)).find((candidate) => candidate.id === deliveryId);
    if (delivery && delivery.state !== 'pending') return delivery;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`delivery ${deliveryId} did not settle`);
}

describe('registering a webhook', () => {
  it('answers with its secret once, in the Standard Webhooks format, and lists it without', async () => {
    const answer = await register('/registered', 'submission.graded, summaries.generated');
    expect(answer.json.status, answer.text).toBe('success');
    expect(answer.json.data).toMatchObject({
      url: `${receiver.url}/registered`,
      events: ['submission.graded', 'summaries.generated'],
      description: 'receiver /registered',
      created_by: world.users.instructor.userId,
    });
    expect(answer.json.data.id).toMatch(/^wh_[A-Za-z0-9_-]{16}$/);
    expect(Buffer.from(answer.json.data.secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);
    const listed = await api.get(`${base}/webhooks`, world.tokens.instructor);
    const entry = listed.json.data.find((hook: { id: string }) => hook.id === answer.json.data.id);
    expect(entry).toEqual({ ...answer.json.data, secret: undefined });
    expect(listed.text).not.toContain(answer.json.data.secret);
    expect((await api.call('DELETE', `${base}/webhooks/${answer.json.data.id}`, { headers: world.tokens.instructor })).json).toEqual({
      status: 'success',
      data: null,
    });
    expect((await api.get(`${base}/webhooks`, world.tokens.instructor)).text).not.toContain(answer.json.data.id);
  });

  it('refuses addresses a repository checkout would refuse, plain http and unknown events', async () => {
    const refused = async (url: string, events: string[] = ['summaries.generated']) =>
      (await api.postJson(`${base}/webhooks`, { url, events }, { ...world.tokens.instructor, Prefer: 'http-status' })).json.message;
    expect(await refused('https://127.0.0.1:9/hook')).toBe(
      "The url's host has the address 127.0.0.1, which is a loopback address; webhooks are not delivered to such addresses.",
    );
    expect(await refused('https://169.254.169.254/latest')).toContain('a link-local address');
    expect(await refused('https://10.1.2.3/hook')).toContain('a private network address');
    expect(await refused('https://[::1]/hook')).toContain('a loopback address');
    expect(await refused('http://93.184.215.14/hook')).toBe('The url must be an absolute https:// URL.');
    expect(await refused('ftp://93.184.215.14/hook')).toBe('The url must be an absolute https:// URL.');
    expect(await refused('https://user:pw@93.184.215.14/hook')).toBe('The url may not contain a user name or password.');
    expect(await refused(`${receiver.url}/x`, ['grades.exploded'])).toBe(
      'Unknown event grades.exploded. Events: submission.graded, submission.failed, summaries.generated, inquiry.opened, inquiry.resolved, similarity.completed.',
    );
    expect(await refused(`${receiver.url}/x`, [])).toBe('A webhook needs a url and events.');
    expect(receiver.received.filter((request) => request.path === '/x')).toEqual([]);
  });
});

describe('delivering events', () => {
  it('signs summaries.generated by the Standard Webhooks scheme; the instructor reads the delivery', async () => {
    const { json } = await register('/summaries', ['summaries.generated']);
    const generated = await generateSummaries();
    const answeredAt = Date.now();
    const [request] = await receiver.waitFor('/summaries', 1);
    const payload = verified(request!, json.data.secret);
    expect(payload).toMatchObject({
      type: 'summaries.generated',
      data: {
        term: world.course.term,
        course: world.course.course,
        summaries: generated.json.data.summaries,
        generation: generated.json.data.generation,
      },
    });
    expect(request!.headers['webhook-id']).toMatch(/^msg_/);
    expect(() => verified(request!, `whsec_${Buffer.alloc(32, 1).toString('base64')}`)).toThrow();
    const delivery = await settled(json.data.id, request!.headers['webhook-id'] as string);
    expect(delivery).toMatchObject({ event: 'summaries.generated', state: 'delivered', attempts: [{ status: 200, error: null }], payload });
    await recordLatency('summaries.generated, local queue', request!.at - answeredAt);
  });

  it('retries a receiver answering 500 with growing gaps, the same message id, until it takes it', async () => {
    const { json } = await register('/flaky', ['summaries.generated']);
    receiver.answer('/flaky', [500, 500], 200);
    await generateSummaries();
    const requests = await receiver.waitFor('/flaky', 3);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of requests) expect(verified(request, json.data.secret).type).toBe('summaries.generated');
    const gaps = [requests[1]!.at - requests[0]!.at, requests[2]!.at - requests[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(RETRY_SCHEDULE[0]! * 1000 - 50);
    expect(gaps[1]).toBeGreaterThanOrEqual(RETRY_SCHEDULE[1]! * 1000 - 50);
    const delivery = await settled(json.data.id, requests[0]!.headers['webhook-id'] as string);
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
  });

  it('keeps a delivery that failed its last retry, lists it as failed, and replays it', async () => {
    const { json } = await register('/down', ['summaries.generated']);
    receiver.answer('/down', [], 503);
    await generateSummaries();
    const requests = await receiver.waitFor('/down', RETRY_SCHEDULE.length + 1);
    const deliveryId = requests[0]!.headers['webhook-id'] as string;
    const failed = await settled(json.data.id, deliveryId);
    expect(failed.state).toBe('failed');
    expect(failed.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 503]);
    expect((await deliveriesOf(json.data.id, '?state=failed')).map((delivery) => delivery.id)).toEqual([deliveryId]);
    expect(await deliveriesOf(json.data.id, '?state=delivered')).toEqual([]);

    receiver.answer('/down', [], 200);
    const replay = await api.postJson(`${base}/webhooks/${json.data.id}/deliveries/${deliveryId}/replay`, {}, world.tokens.instructor);
    expect(replay.json.status, replay.text).toBe('success');
    expect(replay.json.data).toMatchObject({ id: deliveryId, state: 'pending' });
    const again = await receiver.waitFor('/down', RETRY_SCHEDULE.length + 2);
    expect(again.at(-1)!.headers['webhook-id']).toBe(deliveryId);
    expect(verified(again.at(-1)!, json.data.secret).type).toBe('summaries.generated');
    const replayed = await settled(json.data.id, deliveryId);
    expect(replayed.state).toBe('delivered');
    expect(replayed.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 503, 200]);
    // Replaying a delivery being attempted is refused.
    receiver.answer('/down', [], 500);
    await api.postJson(`${base}/webhooks/${json.data.id}/deliveries/${deliveryId}/replay`, {}, world.tokens.instructor);
    const busy = await api.postJson(
      `${base}/webhooks/${json.data.id}/deliveries/${deliveryId}/replay`,
      {},
      { ...world.tokens.instructor, Prefer: 'http-status' },
    );
    expect(busy.httpStatus).toBe(409);
    await settled(json.data.id, deliveryId);
  }, 30_000);

  it('tells the instructor when a submission is graded; a removed webhook gets nothing more', async () => {
    const graded = await register('/graded', ['submission.graded', 'submission.failed']);
    const removed = await register('/removed', ['submission.graded']);
    await api.call('DELETE', `${base}/webhooks/${removed.json.data.id}`, { headers: world.tokens.instructor });
    await uploadGradeable(
      api,
      world,
      selfHostedGradeableJson('hello', `${git.url}/{$gradeable_id}-student.git`, {
        title: 'Hello',
        autograding: { test_cases: [greets(5)] },
      }),
    );
    const submitted = await api.postForm(
      `${base}/gradeable/hello/upload`,
      { vcs_checkout: 'true', git_repo_id: 'x' },
      world.tokens.student,
    );
    expect(submitted.json.status, submitted.text).toBe('success');
    const [request] = await receiver.waitFor('/graded', 1, 60_000);
    expect(verified(request!, graded.json.data.secret)).toMatchObject({
      type: 'submission.graded',
      data: {
        term: world.course.term,
        course: world.course.course,
        gradeable_id: 'hello',
        owner_id: world.users.student.userId,
        version: 1,
        points: 5,
        message: null,
      },
    });
    expect(receiver.received.filter((received) => received.path === '/removed')).toEqual([]);
  }, 90_000);
});

/** Delivery latency, kept with the other measurements under test-output/. */
async function recordLatency(what: string, ms: number) {
  await mkdir('test-output', { recursive: true });
  await writeFile('test-output/webhook-latency.txt', `${what}: ${ms} ms from the API's answer to the receiver\n`);
}
