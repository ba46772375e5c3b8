import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.sessions;

const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** The one valid token of a user: a token is honoured only while this item names its id. */
export interface Session {
  readonly userId: string;
  readonly tokenId: string;
}

export const sessionRef = (userId: string): ItemRef<Session> => ({
  table,
  key: { userId },
  decode: (item: Item) => ({ userId: item.userId as string, tokenId: item.tokenId as string }),
});

/**
 * Replaces the user's session, so the previous token dies with this write; with `replacing`, only
 * while the session is still that token's (its condition fails once another token replaced it or
 * the session ended).
 */
export const putSession = (
  claims: Session & { readonly issuedAt: Date; readonly expiresAt: Date | null; readonly method?: 'password' | 'oidc' },
  replacing?: string,
): TransactItem => ({
  Put: {
    ...(replacing === undefined
      ? {}
      : { ConditionExpression: 'tokenId = :replacing', ExpressionAttributeValues: { ':replacing': replacing } }),
    TableName: tableName(table),
    Item: {
      userId: claims.userId,
      tokenId: claims.tokenId,
      issuedAt: claims.issuedAt.toISOString(),
      expiresAt: claims.expiresAt ? epochSeconds(claims.expiresAt) : undefined,
      method: claims.method ?? 'password',
    },
  },
});

export const deleteSession = (userId: string): TransactItem => ({
  Delete: { TableName: tableName(table), Key: { userId } },
});

/** Ends the session of this token; a session already replaced by a newer token is left alone. */
export async function endSession(userId: string, tokenId: string): Promise<void> {
  try {
    await dynamo().send(
      new DeleteCommand({
        TableName: tableName(table),
        Key: { userId },
        ConditionExpression: 'tokenId = :tokenId',
        ExpressionAttributeValues: { ':tokenId': tokenId },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
