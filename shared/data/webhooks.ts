import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { courseId } from './keys.ts';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll, scanAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, transactWrite, type TransactItem } from './transactions.ts';

const hooks = tables.webhooks;
const secrets = tables.webhookSecrets;
const deliveries = tables.webhookDeliveries;
/** Deliveries are kept this long after their last round started. */
const DELIVERY_TTL_SECONDS = 30 * 24 * 60 * 60;

export {
  webhookEvents,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryState,
  type Webhook,
  type WebhookEventType,
} from './webhook-records.ts';
import type { Delivery, DeliveryAttempt, DeliveryState, Webhook, WebhookEventType } from './webhook-records.ts';

export const webhookKey = (term: string, course: string, webhookId: string) => `${courseId(term, course)}#${webhookId}`;

const decodeWebhook = (item: Item): Webhook => ({
  term: item.term as string,
  course: item.course as string,
  webhookId: item.webhookId as string,
  url: item.url as string,
  events: item.events as WebhookEventType[],
  description: (item.description as string | undefined) ?? '',
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
});

export const webhookRef = (term: string, course: string, webhookId: string): ItemRef<Webhook> => ({
  table: hooks,
  key: { courseId: courseId(term, course), webhookId },
  decode: decodeWebhook,
});

export const webhookSecretRef = (term: string, course: string, webhookId: string): ItemRef<string> => ({
  table: secrets,
  key: { webhookKey: webhookKey(term, course, webhookId) },
  decode: (item) => item.secret as string,
});

/**
 * The course's count of webhooks, beside them in the course's partition (a key no webhook id has):
 * every registration and removal changes it in its own transaction, a registration only while it
 * is below the limit, so registrations at once cannot pass the limit together. A course whose
 * webhooks predate the count gets it from its list at its first registration.
 */
const COUNT_ID = 'count';
const countKey = (term: string, course: string) => ({ courseId: courseId(term, course), webhookId: COUNT_ID });

/** A course's webhooks (never its count). */
export async function webhooksOf(term: string, course: string): Promise<Webhook[]> {
  const items = await queryAll({
    TableName: tableName(hooks),
    KeyConditionExpression: 'courseId = :course AND begins_with(webhookId, :webhook)',
    ExpressionAttributeValues: { ':course': courseId(term, course), ':webhook': 'wh_' },
  });
  return items.map(decodeWebhook);
}

/**
 * Stores a new webhook and its secret together, counting it, provided the course has fewer than
 * `max` (`listed`: how many its list had, which starts a count not yet kept); false when it has not.
 */
export async function putWebhook(webhook: Webhook, secret: string, limit: { listed: number; max: number }): Promise<boolean> {
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName(hooks),
          Key: countKey(webhook.term, webhook.course),
          UpdateExpression: 'SET webhookCount = if_not_exists(webhookCount, :listed) + :one',
          ConditionExpression: 'attribute_not_exists(webhookCount) OR webhookCount < :max',
          ExpressionAttributeValues: { ':listed': limit.listed, ':one': 1, ':max': limit.max },
        },
      },
      {
        Put: {
          TableName: tableName(hooks),
          Item: { courseId: courseId(webhook.term, webhook.course), ...webhook, events: [...webhook.events] },
          ConditionExpression: 'attribute_not_exists(webhookId)',
        },
      },
      { Put: { TableName: tableName(secrets), Item: { webhookKey: webhookKey(webhook.term, webhook.course, webhook.webhookId), secret } } },
    ]);
    return true;
  } catch (error) {
    if (failedConditions(error).includes(0)) return false;
    throw error;
  }
}

/**
 * Removes a webhook and its secret, and counts it off the course's count (when one is kept yet);
 * false when there was no such webhook.
 */
export async function deleteWebhook(term: string, course: string, webhookId: string): Promise<boolean> {
  // Whether the course keeps a count: tried as it is most likely, then the other way (the count
  // may have started in between, from a list that still held this webhook).
  for (let attempt = 0; attempt < 6; attempt++) {
    const counted = attempt % 2 === 0;
    try {
      await transactWrite([
        {
          Delete: {
            TableName: tableName(hooks),
            Key: { courseId: courseId(term, course), webhookId },
            ConditionExpression: 'attribute_exists(webhookId)',
          },
        },
        { Delete: { TableName: tableName(secrets), Key: { webhookKey: webhookKey(term, course, webhookId) } } },
        counted
          ? {
              Update: {
                TableName: tableName(hooks),
                Key: countKey(term, course),
                UpdateExpression: 'SET webhookCount = webhookCount - :one',
                ConditionExpression: 'attribute_exists(webhookCount)',
                ExpressionAttributeValues: { ':one': 1 },
              },
            }
          : {
              ConditionCheck: {
                TableName: tableName(hooks),
                Key: countKey(term, course),
                ConditionExpression: 'attribute_not_exists(webhookCount)',
              },
            },
      ]);
      return true;
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.includes(0)) return false;
      if (!failed.includes(2)) throw error;
    }
  }
  throw new Error(`The webhook count of ${courseId(term, course)} kept changing while ${webhookId} was removed`);
}

const decodeDelivery = (item: Item): Delivery => ({
  term: item.term as string,
  course: item.course as string,
  webhookId: item.webhookId as string,
  deliveryId: item.deliveryId as string,
  event: item.event as WebhookEventType,
  payload: item.payload as string,
  state: item.state as DeliveryState,
  attempts: (item.attempts as DeliveryAttempt[] | undefined) ?? [],
  roundStart: (item.roundStart as number | undefined) ?? 0,
  createdAt: item.createdAt as string,
  ...(item.nextAttemptAt ? { nextAttemptAt: item.nextAttemptAt as string } : {}),
});

export const deliveryRef = (term: string, course: string, webhookId: string, deliveryId: string): ItemRef<Delivery> => ({
  table: deliveries,
  key: { webhookKey: webhookKey(term, course, webhookId), deliveryId },
  decode: decodeDelivery,
});

const expiry = (now: Date) => Math.floor(now.getTime() / 1000) + DELIVERY_TTL_SECONDS;

/** Stores a new delivery; false when it exists already (the event was handled before). */
export async function createDelivery(delivery: Delivery, now = new Date()): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(deliveries),
        Item: {
          webhookKey: webhookKey(delivery.term, delivery.course, delivery.webhookId),
          ...delivery,
          attempts: [...delivery.attempts],
          expiresAt: expiry(now),
        },
        ConditionExpression: 'attribute_not_exists(deliveryId)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

const keyOf = (delivery: Delivery) => ({
  webhookKey: webhookKey(delivery.term, delivery.course, delivery.webhookId),
  deliveryId: delivery.deliveryId,
});

/**
 * Appends an attempt and the state it leads to, provided the delivery is still pending with exactly
 * the attempts read (so two copies of one queue message record one attempt); false otherwise.
 */
export async function recordAttempt(
  delivery: Delivery,
  attempt: DeliveryAttempt,
  next: { state: DeliveryState; nextAttemptAt?: string },
): Promise<boolean> {
  const set = ['attempts = list_append(attempts, :attempt)', '#state = :state', ...(next.nextAttemptAt ? ['nextAttemptAt = :next'] : [])];
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(deliveries),
        Key: keyOf(delivery),
        UpdateExpression: `SET ${set.join(', ')}${next.nextAttemptAt ? '' : ' REMOVE nextAttemptAt'}`,
        ConditionExpression: '#state = :pending AND size(attempts) = :count',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':attempt': [attempt],
          ':state': next.state,
          ':pending': 'pending',
          ':count': delivery.attempts.length,
          ...(next.nextAttemptAt ? { ':next': next.nextAttemptAt } : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Starts a new round of attempts for a finished delivery, provided nothing changed since it was
 * read, with `alongside` in the same transaction.
 */
export async function restartDelivery(
  delivery: Delivery,
  now = new Date(),
  alongside: readonly TransactItem[] = [],
): Promise<Delivery | undefined> {
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName(deliveries),
          Key: keyOf(delivery),
          UpdateExpression: 'SET #state = :pending, roundStart = :count, expiresAt = :expires REMOVE nextAttemptAt',
          ConditionExpression: '#state = :previous AND size(attempts) = :count',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':previous': delivery.state,
            ':count': delivery.attempts.length,
            ':expires': expiry(now),
          },
        },
      },
      ...alongside,
    ]);
    return restarted(delivery);
  } catch (error) {
    if (failedConditions(error).includes(0)) return undefined;
    throw error;
  }
}

/** A finished delivery as a new round of attempts starts it. */
export function restarted(delivery: Delivery): Delivery {
  const { nextAttemptAt: _, ...rest } = delivery;
  return { ...rest, state: 'pending', roundStart: delivery.attempts.length };
}

/**
 * One page of a webhook's deliveries, newest first: at most `size`, after the delivery `after` (a
 * delivery id), optionally only those in one state; `more` when others follow.
 */
export async function deliveriesOf(
  term: string,
  course: string,
  webhookId: string,
  options: { size: number; after?: string; state?: DeliveryState },
): Promise<{ deliveries: Delivery[]; more: boolean }> {
  const key = webhookKey(term, course, webhookId);
  const found: Delivery[] = [];
  let startKey: Record<string, unknown> | undefined =
    options.after === undefined ? undefined : { webhookKey: key, deliveryId: options.after };
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(deliveries),
        KeyConditionExpression: 'webhookKey = :key',
        ScanIndexForward: false,
        // One more than the page, to know whether another follows.
        Limit: options.size + 1 - found.length,
        ExclusiveStartKey: startKey,
        ...(options.state ? { FilterExpression: '#state = :state', ExpressionAttributeNames: { '#state': 'state' } } : {}),
        ExpressionAttributeValues: { ':key': key, ...(options.state ? { ':state': options.state } : {}) },
      }),
    );
    found.push(...(page.Items ?? []).map(decodeDelivery));
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length <= options.size);
  return { deliveries: found.slice(0, options.size), more: found.length > options.size };
}

/**
 * Every delivery still pending, of every course: what the local API queues again when it starts,
 * since its in-process queue lost the attempts it held when it stopped (a Scan: one machine's data).
 */
export async function pendingDeliveries(): Promise<Delivery[]> {
  const items = await scanAll({
    TableName: tableName(deliveries),
    ConsistentRead: true,
    FilterExpression: '#state = :pending',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':pending': 'pending' },
  });
  return items.map(decodeDelivery);
}
