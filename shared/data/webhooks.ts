import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { courseId } from './keys.ts';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, transactWrite } from './transactions.ts';

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

export async function webhooksOf(term: string, course: string): Promise<Webhook[]> {
  const items = await queryAll({
    TableName: tableName(hooks),
    KeyConditionExpression: 'courseId = :course',
    ExpressionAttributeValues: { ':course': courseId(term, course) },
  });
  return items.map(decodeWebhook);
}

/** Stores a new webhook and its secret together. */
export async function putWebhook(webhook: Webhook, secret: string): Promise<void> {
  await transactWrite([
    {
      Put: {
        TableName: tableName(hooks),
        Item: { courseId: courseId(webhook.term, webhook.course), ...webhook, events: [...webhook.events] },
        ConditionExpression: 'attribute_not_exists(webhookId)',
      },
    },
    { Put: { TableName: tableName(secrets), Item: { webhookKey: webhookKey(webhook.term, webhook.course, webhook.webhookId), secret } } },
  ]);
}

/** Removes a webhook and its secret; false when there was no such webhook. */
export async function deleteWebhook(term: string, course: string, webhookId: string): Promise<boolean> {
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
    ]);
    return true;
  } catch (error) {
    if (failedConditions(error).includes(0)) return false;
    throw error;
  }
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

/** Starts a new round of attempts for a finished delivery, provided nothing changed since it was read. */
export async function restartDelivery(delivery: Delivery, now = new Date()): Promise<Delivery | undefined> {
  try {
    await dynamo().send(
      new UpdateCommand({
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
      }),
    );
    const { nextAttemptAt: _, ...rest } = delivery;
    return { ...rest, state: 'pending', roundStart: delivery.attempts.length };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** The newest deliveries of a webhook first, at most `limit`, optionally only those in one state. */
export async function deliveriesOf(
  term: string,
  course: string,
  webhookId: string,
  options: { limit: number; state?: DeliveryState },
): Promise<Delivery[]> {
  const found: Delivery[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(deliveries),
        KeyConditionExpression: 'webhookKey = :key',
        ScanIndexForward: false,
        Limit: options.limit,
        ExclusiveStartKey: startKey,
        ...(options.state ? { FilterExpression: '#state = :state', ExpressionAttributeNames: { '#state': 'state' } } : {}),
        ExpressionAttributeValues: { ':key': webhookKey(term, course, webhookId), ...(options.state ? { ':state': options.state } : {}) },
      }),
    );
    found.push(...(page.Items ?? []).map(decodeDelivery));
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length < options.limit);
  return found.slice(0, options.limit);
}
