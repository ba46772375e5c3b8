import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.credentials;
const PASSWORD = 'password';
const LOGIN_FAILURES = 'login-failures';

/** The login attempts counted against one key within a fixed window that starts at the first one. */
export interface LoginFailures {
  /** Attempts whose password was wrong. */
  readonly count: number;
  /** Attempts counted: wrong, right (until they clear the counter), or still being checked. */
  readonly attempts: number;
  /** Epoch seconds; the counter is void from then on (and DynamoDB TTL removes it). */
  readonly windowEndsAt: number;
}

/**
 * Whom attempts are counted against: every client of a user id together, or one known client of it
 * (a token issued to that user id, named by its token id).
 */
export type LoginCounter = { readonly userId: string; readonly tokenId?: string | undefined };

const counterKey = ({ userId, tokenId }: LoginCounter) => ({
  userId,
  kind: tokenId === undefined ? LOGIN_FAILURES : `${LOGIN_FAILURES}#client#${tokenId}`,
});

/** The password hash of a user id (undefined when it has none), strongly consistent. */
export async function getPasswordHash(userId: string): Promise<string | undefined> {
  const { Items: items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(table),
      KeyConditionExpression: 'userId = :userId AND #kind = :kind',
      ExpressionAttributeNames: { '#kind': 'kind' },
      ExpressionAttributeValues: { ':userId': userId, ':kind': PASSWORD },
      ConsistentRead: true,
    }),
  );
  return items[0]?.passwordHash as string | undefined;
}

/** An attempt counted (in the window that ends then), or the counter that refused it. */
export type Reservation = { readonly windowEndsAt: number } | { readonly refusedBy: LoginFailures };

/**
 * Counts an attempt before its password is checked: within a running window the count of attempts
 * goes up only while it is below the limit; once the window has ended (or there is none) a new one
 * starts. Each step is one conditional write, so concurrent attempts never pass the limit together.
 * The counter carries a TTL at its window's end, so keys of user ids that do not exist do not pile up.
 */
export async function reserveLoginAttempt(
  counter: LoginCounter,
  policy: { readonly maxFailures: number; readonly windowSeconds: number },
  nowSeconds: number,
): Promise<Reservation> {
  const TableName = tableName(table);
  const Key = counterKey(counter);
  for (let attempt = 0; attempt < 4; attempt++) {
    // Most logins find no counter (a correct password deletes it): start a window first, so that
    // the attempt costs one write, beside the password's read.
    const windowEndsAt = nowSeconds + policy.windowSeconds;
    try {
      await dynamo().send(
        new PutCommand({
          TableName,
          Item: { ...Key, attempts: 1, failures: 0, windowEndsAt, expiresAt: windowEndsAt },
          ConditionExpression: 'attribute_not_exists(userId) OR windowEndsAt <= :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
        }),
      );
      return { windowEndsAt };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    try {
      const { Attributes: counted } = await dynamo().send(
        new UpdateCommand({
          TableName,
          Key,
          // A counter written before attempts were counted apart from failures starts from its failures.
          UpdateExpression: 'SET attempts = if_not_exists(attempts, failures) + :one',
          ConditionExpression: 'windowEndsAt > :now AND (attempts < :max OR (attribute_not_exists(attempts) AND failures < :max))',
          ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds, ':max': policy.maxFailures },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { windowEndsAt: Number(counted?.windowEndsAt) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The counter as the condition found it: a running window at the limit refuses the attempt.
      const running = Number(error.Item?.windowEndsAt?.N);
      if (running > nowSeconds) {
        const count = Number(error.Item?.failures?.N ?? 0);
        return { refusedBy: { count, attempts: Number(error.Item?.attempts?.N ?? count), windowEndsAt: running } };
      }
    }
  }
  throw new Error(`The login counter of ${counter.userId} kept changing.`);
}

/** Marks a counted attempt as failed, unless its window is gone (a correct password cleared it, or it ended). */
export async function recordLoginFailure(counter: LoginCounter, windowEndsAt: number): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: counterKey(counter),
        UpdateExpression: 'ADD failures :one',
        ConditionExpression: 'windowEndsAt = :window',
        ExpressionAttributeValues: { ':one': 1, ':window': windowEndsAt },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

export const passwordItem = (userId: string, passwordHash: string) => ({ userId, kind: PASSWORD, passwordHash });

export const putPassword = (userId: string, passwordHash: string): TransactItem => ({
  Put: { TableName: tableName(table), Item: passwordItem(userId, passwordHash) },
});

/** Replaces a password only while it is still `previousHash` (a concurrent change wins). */
export const replacePassword = (userId: string, passwordHash: string, previousHash: string): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: passwordItem(userId, passwordHash),
    ConditionExpression: 'passwordHash = :previousHash',
    ExpressionAttributeValues: { ':previousHash': previousHash },
  },
});

export const credentialsTableName = () => tableName(table);

/** Guards a token write against a password change that happened since the password was checked. */
export const passwordStillIs = (userId: string, passwordHash: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(table),
    Key: { userId, kind: PASSWORD },
    ConditionExpression: 'passwordHash = :passwordHash',
    ExpressionAttributeValues: { ':passwordHash': passwordHash },
  },
});

export const clearLoginFailures = (counter: LoginCounter): TransactItem => ({
  Delete: { TableName: tableName(table), Key: counterKey(counter) },
});
