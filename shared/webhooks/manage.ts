import type { Course } from '#shared/courses/course.ts';
import {
  deleteWebhook,
  deliveriesOf,
  deliveryRef,
  putWebhook,
  restartDelivery,
  restarted,
  webhookRef,
  webhooksOf,
} from '#shared/data/webhooks.ts';
import { checkWebhookAddress } from './address.ts';
import { DELIVERIES_PAGE, deliveryRecord, deliveryStates, replayRefusal, type Delivery, type DeliveryState } from './delivery.ts';
import { attemptMessage } from './deliver.ts';
import { webhookOutbox } from './publish.ts';
import { allowedWebhookHosts } from './settings.ts';
import { invalidInput } from '#shared/errors.ts';
import { encodeCursor, readPageRequest, takeWithin } from '#shared/paging.ts';
import {
  MAX_WEBHOOKS_PER_COURSE,
  isDeliveryId,
  newWebhookId,
  newWebhookSecret,
  webhookRecord,
  webhookRequest,
  type Webhook,
  type WebhookFields,
} from './webhook.ts';
import {
  badDeliveryState,
  deliveryNotFound as noDelivery,
  stillAttempting,
  tooManyWebhooks,
  webhookNotFound as noWebhook,
} from './failures.ts';

/** Registers a webhook; the answer is the only place its secret is ever shown. */
export async function registerWebhook(course: Course, userId: string, fields: WebhookFields, now = new Date()) {
  const request = webhookRequest(fields);
  const check = await checkWebhookAddress(request.url, allowedWebhookHosts());
  if (!check.ok) throw invalidInput(check.problem);
  const listed = (await webhooksOf(course.term, course.course)).length;
  if (listed >= MAX_WEBHOOKS_PER_COURSE) throw tooManyWebhooks({ max: MAX_WEBHOOKS_PER_COURSE });
  const webhook: Webhook = {
    term: course.term,
    course: course.course,
    webhookId: newWebhookId(),
    url: request.url.href,
    events: request.events,
    description: request.description,
    createdAt: now.toISOString(),
    createdBy: userId,
  };
  const secret = newWebhookSecret();
  // The limit holds against registrations at once: the course's count is raised with the webhook, only below it.
  if (!(await putWebhook(webhook, secret, { listed, max: MAX_WEBHOOKS_PER_COURSE })))
    throw tooManyWebhooks({ max: MAX_WEBHOOKS_PER_COURSE });
  return { ...webhookRecord(webhook), secret };
}

export async function listWebhooks(course: Course) {
  return (await webhooksOf(course.term, course.course)).map(webhookRecord);
}

export async function removeWebhook(course: Course, webhookId: string): Promise<null> {
  if (!(await deleteWebhook(course.term, course.course, webhookId))) throw webhookNotFound(webhookId);
  return null;
}

export const webhookNotFound = (webhookId: string) => noWebhook({ webhook_id: webhookId });
export const deliveryNotFound = (deliveryId: string) => noDelivery({ delivery_id: deliveryId });

/** One page of a webhook's deliveries, newest first, and the cursor of the next (null on the last). */
export async function listDeliveries(
  course: Course,
  webhookId: string,
  query: { readonly state?: string | undefined; readonly page_size?: string | undefined; readonly cursor?: string | undefined },
) {
  const { state } = query;
  if (state !== undefined && !(deliveryStates as readonly string[]).includes(state)) throw badDeliveryState();
  const request = readPageRequest(query, {
    list: 'delivery list',
    defaultSize: DELIVERIES_PAGE,
    keys: 1,
    accepts: ([deliveryId]) => deliveryId !== undefined && isDeliveryId(deliveryId),
  });
  const { deliveries, more } = await deliveriesOf(course.term, course.course, webhookId, {
    size: request.size,
    ...(request.after ? { after: request.after[0] } : {}),
    ...(state ? { state: state as DeliveryState } : {}),
  });
  const shown = takeWithin(deliveries.map((delivery) => ({ id: delivery.deliveryId, record: deliveryRecord(delivery) })));
  const last = shown.at(-1);
  const cut = shown.length < deliveries.length;
  return { items: shown.map(({ record }) => record), next: (more || cut) && last ? encodeCursor([last.id]) : null };
}

/** A new round of attempts for a finished delivery, queued at once. */
export async function replayDelivery(delivery: Delivery, now = new Date()) {
  if (replayRefusal(delivery)) throw stillAttempting();
  // The first attempt's message is written with the restart (the outbox), so a queue refusing it loses nothing.
  const outbox = webhookOutbox([attemptMessage(restarted(delivery))], now);
  const round = await restartDelivery(delivery, now, outbox.items);
  if (!round) throw stillAttempting();
  await outbox.send();
  return deliveryRecord(round);
}

/** The webhook a request's path names, to read with the token check. */
export const webhookReads = (params: { readonly semester: string; readonly course: string; readonly webhook_id: string }) => ({
  webhook: webhookRef(params.semester, params.course, params.webhook_id),
});

/** The webhook and the delivery of it a request's path names, to read with the token check. */
export const deliveryReads = (params: {
  readonly semester: string;
  readonly course: string;
  readonly webhook_id: string;
  readonly delivery_id: string;
}) => ({ ...webhookReads(params), delivery: deliveryRef(params.semester, params.course, params.webhook_id, params.delivery_id) });
