import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import type { LtiDeepLinking } from './lti.ts';
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
 * A user's launch session (from an LMS), apart from their API token: kept under its own key, so a
 * launch never ends the token of the editor extension or a script, and a new API token never ends
 * a launch session. `#` is in no user id, so the key never meets a user's.
 */
export const launchSessionKey = (userId: string): string => `lti#${userId}`;

/** The launch session of a user, read by the token check of a launch session's token. */
export const launchSessionRef = (userId: string): ItemRef<Session> => ({
  table,
  key: { userId: launchSessionKey(userId) },
  decode: (item: Item) => ({ userId, tokenId: item.tokenId as string }),
});

/**
 * What a launch session keeps of its launch beyond its token's claims, for linking its LMS course
 * (shared/lti/links.ts): the registration, deployment and context, and the platform's roster and
 * grade service endpoints.
 */
export interface LaunchDetails {
  readonly tokenId: string;
  readonly registrationId: string;
  readonly deploymentId: string;
  readonly contextId: string | null;
  readonly mayLink: boolean;
  readonly membershipsUrl: string | null;
  readonly grades: { readonly lineitems: string | null; readonly lineitem: string | null; readonly scope: readonly string[] } | null;
  /** A deep-linking launch's settings (null: a resource-link launch). */
  readonly deepLinking: LtiDeepLinking | null;
}

/** The launch session's details (absent: no launch session, or one written before they were kept). */
export const launchDetailsRef = (userId: string): ItemRef<LaunchDetails | undefined> => ({
  table,
  key: { userId: launchSessionKey(userId) },
  decode: (item: Item) =>
    typeof item.registrationId === 'string'
      ? {
          tokenId: item.tokenId as string,
          registrationId: item.registrationId,
          deploymentId: item.deploymentId as string,
          contextId: (item.contextId as string | null | undefined) ?? null,
          mayLink: item.mayLink === true,
          membershipsUrl: (item.membershipsUrl as string | null | undefined) ?? null,
          grades: (item.grades as LaunchDetails['grades'] | undefined) ?? null,
          deepLinking: (item.deepLinking as LtiDeepLinking | null | undefined) ?? null,
        }
      : undefined,
});

/** Replaces the user's launch session (their earlier launch session ends with this write). */
export const putLaunchSession = (
  claims: Session & { readonly issuedAt: Date; readonly expiresAt: Date },
  details: Omit<LaunchDetails, 'tokenId'>,
): TransactItem => ({
  Put: {
    TableName: tableName(table),
    Item: {
      ...details,
      userId: launchSessionKey(claims.userId),
      tokenId: claims.tokenId,
      issuedAt: claims.issuedAt.toISOString(),
      expiresAt: epochSeconds(claims.expiresAt),
      method: 'lti',
    },
  },
});

/** Ends the launch session of this token; a launch session already replaced is left alone. */
export async function endLaunchSession(userId: string, tokenId: string): Promise<void> {
  await endSession(launchSessionKey(userId), tokenId);
}

/**
 * Replaces the user's session, so the previous token dies with this write; with `replacing`, only
 * while the session is still that token's (its condition fails once another token replaced it or
 * the session ended).
 */
export const putSession = (
  claims: Session & { readonly issuedAt: Date; readonly expiresAt: Date | null; readonly method?: 'password' | 'oidc' | 'lti' },
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
