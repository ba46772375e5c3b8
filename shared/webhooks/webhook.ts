import { randomBytes } from 'node:crypto';
import { webhookEvents, type Webhook, type WebhookEventType } from '#shared/data/webhook-records.ts';
import { needsUrlAndEvents, unknownEvent, urlNotAbsolute, urlWithCredentials } from './failures.ts';

/**
 * Webhooks: instructors register an HTTPS URL per course for the events they want; each event is
 * delivered as a Standard Webhooks message (https://www.standardwebhooks.com), signed with the
 * webhook's own secret. These are the rules; shared/webhooks/deliver.ts does the delivering.
 */
export { webhookEvents, type Webhook, type WebhookEventType } from '#shared/data/webhook-records.ts';

export const MAX_WEBHOOKS_PER_COURSE = 10;
export const MAX_URL_LENGTH = 2000;
export const MAX_DESCRIPTION_LENGTH = 200;

/** What an instructor asks for; the URL is checked against the network rules separately. */
export interface WebhookRequest {
  readonly url: URL;
  readonly events: readonly WebhookEventType[];
  readonly description: string;
}

export const newWebhookId = (): string => `wh_${randomBytes(12).toString('base64url')}`;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * A message id that sorts by time (newest last): `msg_`, the time in milliseconds as 9 base-36
 * digits, then 12 random ones. It is the delivery's id and the `webhook-id` header, the same on
 * every attempt, so receivers can drop a message they have already handled.
 */
export function newMessageId(now = new Date()): string {
  const random = Array.from(randomBytes(12), (byte) => (byte % 36).toString(36)).join('');
  return `msg_${now.getTime().toString(36).padStart(9, '0')}${random}`;
}

export { isDeliveryId, isWebhookId } from '#shared/ids.ts';

/** A registration's fields as the route's input reads them: the url not blank, `events` a list (JSON array, repeated field or one string). */
export interface WebhookFields {
  readonly url: string;
  readonly events: readonly string[];
  readonly description?: string | undefined;
}

/** The url, events and description of a registration, or a failure naming the problem. */
export function webhookRequest(fields: WebhookFields): WebhookRequest {
  return { url: webhookUrl(fields.url.trim()), events: eventList(fields.events), description: fields.description ?? '' };
}

function webhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw urlNotAbsolute();
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw urlNotAbsolute();
  if (url.username || url.password) throw urlWithCredentials();
  url.hash = '';
  return url;
}

/**
 * Events as listed (each entry may itself be a comma- or space-separated list); each must be
 * known. Duplicates are dropped; the result is in the order of webhookEvents.
 */
export function eventList(items: readonly string[]): WebhookEventType[] {
  const names = items.flatMap((item) => item.split(/[\s,]+/)).filter((name) => name !== '');
  for (const name of names) {
    if (!(webhookEvents as readonly string[]).includes(name)) {
      throw unknownEvent({ event: name, events: webhookEvents.join(', ') });
    }
  }
  if (names.length === 0) throw needsUrlAndEvents();
  return webhookEvents.filter((event) => names.includes(event));
}

/** A webhook as the API shows it: never with its secret. */
export function webhookRecord(webhook: Webhook) {
  return {
    id: webhook.webhookId,
    url: webhook.url,
    events: [...webhook.events],
    description: webhook.description,
    created_at: webhook.createdAt,
    created_by: webhook.createdBy,
  };
}

/** Something that happened in a course, as published to its webhooks. */
export interface WebhookEvent {
  /** The message id (see newMessageId). */
  readonly id: string;
  readonly type: WebhookEventType;
  readonly timestamp: string;
  readonly term: string;
  readonly course: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The signed body: Standard Webhooks' `type`, `timestamp` and `data` (which names the course first). */
export const eventPayload = (event: WebhookEvent): string =>
  JSON.stringify({ type: event.type, timestamp: event.timestamp, data: { term: event.term, course: event.course, ...event.data } });
