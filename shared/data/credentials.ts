import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.credentials;
const PASSWORD = 'password';
const LOGIN_FAILURES = 'login-failures';

/** Failed logins of one user id within a fixed window that starts at the first failure. */
export interface LoginFailures {
  readonly count: number;
  /** Epoch seconds; the counter is void from then on (and DynamoDB TTL removes it). */
  readonly windowEndsAt: number;
}

export interface Credentials {
  readonly passwordHash: string | undefined;
  readonly loginFailures: LoginFailures | undefined;
}

/** The password hash and failed-login counter of a user id, in one strongly consistent query. */
export async function getCredentials(userId: string): Promise<Credentials> {
  const { Items: items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(table),
      KeyConditionExpression: 'userId = :userId',
      ExpressionAttributeValues: { ':userId': userId },
      ConsistentRead: true,
    }),
  );
  const password = items.find((item) => item.kind === PASSWORD);
  const failures = items.find((item) => item.kind === LOGIN_FAILURES);
  return {
    passwordHash: password?.passwordHash as string | undefined,
    loginFailures: failures ? { count: failures.failures as number, windowEndsAt: failures.windowEndsAt as number } : undefined,
  };
}

/**
 * Counts one failed login: within a running window the counter goes up; otherwise a new window
 * starts. Both steps are conditional, so concurrent failures are all counted.
 */
export async function recordLoginFailure(userId: string, policy: { readonly windowSeconds: number }, nowSeconds: number): Promise<void> {
  const TableName = tableName(table);
  const Key = { userId, kind: LOGIN_FAILURES };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'ADD failures :one',
          ConditionExpression: 'windowEndsAt > :now',
          ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds },
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const windowEndsAt = nowSeconds + policy.windowSeconds;
    try {
      await dynamo().send(
        new PutCommand({
          TableName,
          Item: { ...Key, failures: 1, windowEndsAt, expiresAt: windowEndsAt },
          ConditionExpression: 'attribute_not_exists(userId) OR windowEndsAt <= :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

export const passwordItem = (userId: string, passwordHash: string) => ({ userId, kind: PASSWORD, passwordHash });

export const putPassword = (userId: string, passwordHash: string): TransactItem => ({
  Put: { TableName: tableName(table), Item: passwordItem(userId, passwordHash) },
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

export const clearLoginFailures = (userId: string): TransactItem => ({
  Delete: { TableName: tableName(table), Key: { userId, kind: LOGIN_FAILURES } },
});
