import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.idempotency;
const TTL_SECONDS = 24 * 60 * 60;

/** The first answer to a request sent with an Idempotency-Key, and what that request was. */
export interface StoredAnswer {
  readonly fingerprint: string;
  readonly data: unknown;
  /** The version a submission created (answers kept before it was recorded have none). */
  readonly version?: number;
}

export const idempotencyRef = (key: string): ItemRef<StoredAnswer> => ({
  table,
  key: { key },
  decode: (item: Item) => ({
    fingerprint: item.fingerprint as string,
    data: JSON.parse(item.data as string),
    ...(typeof item.version === 'number' ? { version: item.version } : {}),
  }),
});

export const putAnswer = (key: string, answer: StoredAnswer, now = new Date()): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: {
      key,
      fingerprint: answer.fingerprint,
      data: JSON.stringify(answer.data),
      ...(answer.version === undefined ? {} : { version: answer.version }),
      expiresAt: Math.floor(now.getTime() / 1000) + TTL_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(#key) OR expiresAt < :now',
    ExpressionAttributeNames: { '#key': 'key' },
    ExpressionAttributeValues: { ':now': Math.floor(now.getTime() / 1000) },
  },
});

/** How long an upload's consumed marker is kept: well past the upload itself (a day, then its lifecycle's rounding). */
const CONSUMED_SECONDS = 7 * 24 * 60 * 60;

/**
 * Marks an upload consumed by the version whose transaction this is in: the second transaction to
 * consume it fails this condition. Keyed on the upload's storage key, which holds its uploader's
 * folder and has a `/` where every answer's key has `#` after its user id (user ids have no `/`):
 * never an answer's key.
 */
export const consumeUpload = (uploadKey: string, now = new Date()): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: { key: uploadKey, consumedAt: now.toISOString(), expiresAt: Math.floor(now.getTime() / 1000) + CONSUMED_SECONDS },
    ConditionExpression: 'attribute_not_exists(#key)',
    ExpressionAttributeNames: { '#key': 'key' },
  },
});
