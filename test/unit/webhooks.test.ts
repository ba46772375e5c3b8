import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { parseInput } from '#functions/definitions.ts';
import { checkWebhookAddress } from '#shared/webhooks/address.ts';
import { signedHeaders } from '#shared/webhooks/deliver.ts';
import { deliveryRecord, nextStep, queueDelaySeconds, replayRefusal, type Delivery } from '#shared/webhooks/delivery.ts';
import { DEFAULT_RETRY_SCHEDULE, retrySchedule } from '#shared/webhooks/settings.ts';
import { gradingOutcomeEvent, outboxId, summariesGeneratedEvent, webhookOutbox } from '#shared/webhooks/publish.ts';
import {
  eventList as eventNames,
  eventPayload,
  isDeliveryId,
  isWebhookId,
  newMessageId,
  newWebhookId,
  newWebhookSecret,
  webhookRequest as registration,
} from '#shared/webhooks/webhook.ts';

/** A registration body as the HTTP layer reads it (see shared/http/inputs.ts), then the domain's rules. */
const fieldsOf = (body: Record<string, unknown>) => parseInput('create-webhook', { body }).body;
const webhookRequest = (body: Record<string, unknown>) => registration(fieldsOf(body));
const eventList = (events: unknown) => eventNames(fieldsOf({ url: 'https://hooks.example.edu/', events }).events);

const failure = (action: () => unknown): string => {
  try {
    action();
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
  throw new Error('no failure');
};

describe('a webhook registration', () => {
  it('takes events as a JSON array, a repeated form field or a comma list, in a fixed order without duplicates', () => {
    expect(eventList(['summaries.generated', 'submission.graded', 'summaries.generated'])).toEqual([
      'submission.graded',
      'summaries.generated',
    ]);
    expect(eventList('submission.failed, submission.graded')).toEqual(['submission.graded', 'submission.failed']);
    expect(eventList('summaries.generated submission.failed')).toEqual(['submission.failed', 'summaries.generated']);
    expect(failure(() => eventList('submission.graded,nope'))).toBe(
      'Unknown event nope. Events: submission.graded, submission.failed, summaries.generated, inquiry.opened, inquiry.resolved, similarity.completed.',
    );
    expect(failure(() => eventList([1]))).toBe('The field events must be a list of event names.');
    expect(failure(() => eventList(' , '))).toBe('A webhook needs a url and events.');
  });

  it('needs an absolute http(s) url without credentials; the fragment is dropped', () => {
    expect(webhookRequest({ url: ' https://hooks.example.edu/course#x ', events: 'summaries.generated' })).toMatchObject({
      url: new URL('https://hooks.example.edu/course'),
      events: ['summaries.generated'],
      description: '',
    });
    expect(failure(() => webhookRequest({ url: '/relative', events: 'summaries.generated' }))).toBe(
      'The url must be an absolute https:// URL.',
    );
    expect(failure(() => webhookRequest({ url: 'javascript:alert(1)', events: 'summaries.generated' }))).toBe(
      'The url must be an absolute https:// URL.',
    );
    expect(failure(() => webhookRequest({ url: 'https://a:b@hooks.example.edu/', events: 'summaries.generated' }))).toBe(
      'The url may not contain a user name or password.',
    );
    expect(failure(() => webhookRequest({ events: 'summaries.generated' }))).toBe('A webhook needs a url and events.');
    expect(failure(() => webhookRequest({ url: 'https://hooks.example.edu/' }))).toBe('A webhook needs a url and events.');
    expect(failure(() => webhookRequest({ url: 'https://hooks.example.edu/', events: 'x', description: 'd'.repeat(201) }))).toBe(
      'The field description must be at most 200 characters long.',
    );
  });

  it('gets ids and a Standard Webhooks secret of the documented forms', () => {
    expect(isWebhookId(newWebhookId())).toBe(true);
    expect(isWebhookId('wh_../../x')).toBe(false);
    expect(newWebhookSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newWebhookSecret()).not.toBe(newWebhookSecret());
  });

  it('names messages so that later ones sort after earlier ones', () => {
    const first = newMessageId(new Date('2026-11-23T10:00:00.000Z'));
    const second = newMessageId(new Date('2026-11-23T10:00:00.001Z'));
    expect(isDeliveryId(first)).toBe(true);
    expect(first < second).toBe(true);
    expect(newMessageId(new Date('2100-01-01T00:00:00Z')) > second).toBe(true);
  });
});

describe('where a webhook may be delivered', () => {
  const resolvesTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses loopback, link-local and private addresses, also behind a name, unless the host is allowed', async () => {
    expect(await checkWebhookAddress(new URL('https://hooks.example.edu/'), [], resolvesTo('93.184.215.14'))).toEqual({
      ok: true,
      address: '93.184.215.14',
      family: 4,
    });
    expect(await checkWebhookAddress(new URL('https://hooks.example.edu/'), [], resolvesTo('93.184.215.14', '10.0.0.8'))).toEqual({
      ok: false,
      problem: "The url's host has the address 10.0.0.8, which is a private network address; webhooks are not delivered to such addresses.",
    });
    expect(await checkWebhookAddress(new URL('https://[fe80::1]/'), [])).toMatchObject({
      ok: false,
      problem: expect.stringContaining('a link-local address'),
    });
    expect(await checkWebhookAddress(new URL('https://hooks.campus.edu/'), ['hooks.campus.edu'], resolvesTo('10.0.0.8'))).toMatchObject({
      ok: true,
      address: '10.0.0.8',
    });
    expect(await checkWebhookAddress(new URL('https://hooks.example.edu/'), [], async () => [])).toEqual({
      ok: false,
      problem: 'The host hooks.example.edu could not be found.',
    });
  });

  it('takes plain http only from an allowed host', async () => {
    expect(await checkWebhookAddress(new URL('http://93.184.215.14/'), [])).toEqual({
      ok: false,
      problem: 'The url must be an absolute https:// URL.',
    });
    expect(await checkWebhookAddress(new URL('http://127.0.0.1:8080/'), ['127.0.0.1:8080'])).toMatchObject({
      ok: true,
      address: '127.0.0.1',
    });
    expect(await checkWebhookAddress(new URL('http://127.0.0.1:8081/'), ['127.0.0.1:8080'])).toMatchObject({ ok: false });
  });
});

describe('retries', () => {
  const now = new Date('2026-11-23T10:00:00Z');

  it('ends a round delivered on any 2xx, retries after each delay of the schedule, then fails', () => {
    expect(nextStep(1, 204, [5, 300], now)).toEqual({ state: 'delivered' });
    expect(nextStep(1, 500, [5, 300], now)).toEqual({ state: 'pending', delaySeconds: 5, nextAttemptAt: '2026-11-23T10:00:05.000Z' });
    expect(nextStep(2, null, [5, 300], now)).toEqual({ state: 'pending', delaySeconds: 300, nextAttemptAt: '2026-11-23T10:05:00.000Z' });
    expect(nextStep(3, 301, [5, 300], now)).toEqual({ state: 'failed' });
    expect(nextStep(1, 500, [], now)).toEqual({ state: 'failed' });
  });

  it('asks the queue for whole seconds up to its 15-minute limit; a longer wait goes round again', () => {
    expect(queueDelaySeconds(undefined, now)).toBe(0);
    expect(queueDelaySeconds('2026-11-23T10:00:00.300Z', now)).toBe(1);
    expect(queueDelaySeconds('2026-11-23T12:00:00Z', now)).toBe(900);
    expect(queueDelaySeconds('2026-11-23T09:00:00Z', now)).toBe(0);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE, keeping the default (five attempts over hours) for nonsense', () => {
    expect(retrySchedule(undefined)).toEqual({ delays: DEFAULT_RETRY_SCHEDULE });
    expect(DEFAULT_RETRY_SCHEDULE).toHaveLength(4);
    expect(retrySchedule('0.2, 0.4,1')).toEqual({ delays: [0.2, 0.4, 1] });
    expect(retrySchedule('5,,10')).toMatchObject({
      delays: DEFAULT_RETRY_SCHEDULE,
      problem: expect.stringContaining('WEBHOOK_RETRY_SCHEDULE'),
    });
    expect(retrySchedule('-1')).toMatchObject({ problem: expect.any(String) });
    expect(retrySchedule('ten')).toMatchObject({ problem: expect.any(String) });
  });
});

describe('a delivery', () => {
  const delivery: Delivery = {
    term: 'f26',
    course: 'sample',
    webhookId: 'wh_aaaaaaaaaaaaaaaa',
    deliveryId: 'msg_0mhw00000aaaaaaaaaaaa',
    event: 'summaries.generated',
    payload: eventPayload({
      id: 'msg_x',
      type: 'summaries.generated',
      timestamp: '2026-11-23T10:00:00.000Z',
      term: 'f26',
      course: 'sample',
      data: { summaries: 3 },
    }),
    state: 'failed',
    attempts: [{ at: '2026-11-23T10:00:00.000Z', status: null, durationMs: 3, error: 'the connection was refused' }],
    roundStart: 0,
    createdAt: '2026-11-23T10:00:00.000Z',
  };

  it('carries the Standard Webhooks payload, naming the course first', () => {
    expect(JSON.parse(delivery.payload)).toEqual({
      type: 'summaries.generated',
      timestamp: '2026-11-23T10:00:00.000Z',
      data: { term: 'f26', course: 'sample', summaries: 3 },
    });
  });

  it('is signed so that a Standard Webhooks library verifies it, and fails verification when changed', () => {
    const secret = newWebhookSecret();
    const headers = signedHeaders(secret, delivery.deliveryId, delivery.payload, new Date());
    expect(new Webhook(secret).verify(delivery.payload, headers)).toEqual(JSON.parse(delivery.payload));
    expect(() => new Webhook(secret).verify(delivery.payload.replace('3', '4'), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(delivery.payload, headers)).toThrow();
  });

  it('is shown with every attempt, and may be replayed only once it has finished', () => {
    expect(deliveryRecord(delivery)).toMatchObject({
      id: delivery.deliveryId,
      state: 'failed',
      next_attempt_at: null,
      attempts: [{ attempt: 1, status: null, error: 'the connection was refused', response: null }],
      payload: { type: 'summaries.generated' },
    });
    expect(replayRefusal(delivery)).toBeUndefined();
    expect(replayRefusal({ ...delivery, state: 'pending' })).toMatch(/still being attempted/);
  });
});

describe('the outbox', () => {
  it('keeps an event under its own id, and an attempt under its delivery and place, so writing one twice keeps one entry', () => {
    const event = gradingOutcomeEvent(
      { term: 'f26', course: 'c', gradeableId: 'g', ownerId: 's', version: 2 },
      'graded',
      { points: 5 },
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(outboxId({ kind: 'event', event })).toBe(event.id);
    expect(event).toMatchObject({ type: 'submission.graded', data: { version: 2, points: 5, message: null, commit: null } });
    const attempt = { kind: 'attempt', term: 'f26', course: 'c', webhookId: 'wh_a', deliveryId: 'msg_b', after: 3 } as const;
    expect(outboxId(attempt)).toBe('msg_b/wh_a/3');
    expect(outboxId({ ...attempt, after: 4 })).not.toBe(outboxId(attempt));
  });

  it('publishes nothing in a process without a webhook queue', () => {
    const event = summariesGeneratedEvent({ term: 'f26', course: 'c' }, { summaries: 1, generated_at: 'x', generation: 'y' });
    expect(webhookOutbox([{ kind: 'event', event }]).items).toEqual([]);
  });
});
