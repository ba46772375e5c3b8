import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { changeCopiedSource, memberCopyOf, sourceUnchanged } from './enrollment-copies.ts';
export { SourceChanged } from './enrollment-copies.ts';
import { copyHolder, enrollmentsOfUser } from './enrollments.ts';
import { scanAll } from './paging.ts';
import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.users;

/** System access levels, numbered as the reference numbers them (1 superuser, 2 faculty, 3 user). */
export const accessLevels = ['superuser', 'faculty', 'user'] as const;
export type AccessLevel = (typeof accessLevels)[number];

export interface User {
  readonly userId: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
  readonly accessLevel: AccessLevel;
  /** A disabled account gets no token; absent (not disabled) unless a change names it. */
  readonly disabled?: boolean;
  /** The identity at the identity provider the account is linked to (at its first sign-in there). */
  readonly identity?: Identity;
}

/** Who someone is at an identity provider: the issuer and its `sub` for them, which it never reuses. */
export interface Identity {
  readonly issuer: string;
  readonly subject: string;
}

export const decodeUser = (item: Item): User => ({
  userId: item.userId as string,
  givenName: item.givenName as string,
  familyName: item.familyName as string,
  email: item.email as string,
  accessLevel: item.accessLevel as User['accessLevel'],
  ...(item.disabled === true ? { disabled: true } : {}),
  ...(typeof item.oidcSubject === 'string' ? { identity: { issuer: item.oidcIssuer as string, subject: item.oidcSubject } } : {}),
});

export const userRef = (userId: string): ItemRef<User> => ({ table, key: { userId }, decode: decodeUser });

export async function getUser(userId: string): Promise<User | undefined> {
  const { Item: item } = await dynamo().send(new GetCommand({ TableName: tableName(table), Key: { userId }, ConsistentRead: true }));
  return item ? decodeUser(item) : undefined;
}

/** Only the profile's own fields: nothing else a caller's object carries is ever stored. */
export const userItem = ({ userId, givenName, familyName, email, accessLevel, disabled, identity }: User) => ({
  userId,
  givenName,
  familyName,
  email,
  accessLevel,
  ...(disabled ? { disabled: true } : {}),
  ...(identity ? { oidcIssuer: identity.issuer, oidcSubject: identity.subject } : {}),
});

/**
 * Changes an existing user's profile, with the copies of it on their enrollment items
 * (enrollment-copies.ts); false when there is no such user. Whether the account is disabled
 * changes only when `user` says (a roster import's profile leaves it as it is). With `asRead`
 * (the profile the change was made from), the change is written only while the profile is still
 * that one, and throws `SourceChanged` otherwise, so it never undoes a change made since the read.
 */
export async function changeProfile(user: User, alongside?: (before: User) => readonly TransactItem[], asRead?: User): Promise<boolean> {
  const written = await changeCopiedSource({
    ...(alongside ? { alongside: (before: Item) => alongside(decodeUser(before)) } : {}),
    ...(asRead ? { asRead: profileAsRead(asRead) } : {}),
    tableName: tableName(table),
    key: { userId: user.userId },
    set: `givenName = :givenName, familyName = :familyName, email = :email, accessLevel = :accessLevel${user.disabled === undefined ? '' : ', disabled = :disabled'}`,
    values: {
      ':givenName': user.givenName,
      ':familyName': user.familyName,
      ':email': user.email,
      ':accessLevel': user.accessLevel,
      ...(user.disabled === undefined ? {} : { ':disabled': user.disabled }),
    },
    attribute: 'memberCopy',
    holders: async () => (await enrollmentsOfUser(user.userId)).map(copyHolder),
    fills: async (item, holders, self) => {
      const copy = memberCopyOf(decodeUser(item));
      return [{ checks: [sourceUnchanged(self, true)], holders: holders.map((holder) => ({ holder, copy })) }];
    },
  });
  return written !== undefined;
}

/** The condition that a user's profile is still `user` (names, e-mail, level and whether disabled). */
const profileAsRead = (user: User) => ({
  condition: `givenName = :readGivenName AND familyName = :readFamilyName AND email = :readEmail AND accessLevel = :readLevel AND ${
    user.disabled ? 'disabled = :readDisabled' : '(attribute_not_exists(disabled) OR disabled = :readDisabled)'
  }`,
  values: {
    ':readGivenName': user.givenName,
    ':readFamilyName': user.familyName,
    ':readEmail': user.email,
    ':readLevel': user.accessLevel,
    ':readDisabled': user.disabled === true,
  },
});

/** Creates the user, or changes their profile (and its copies) when they exist. */
export async function putUser(user: User): Promise<void> {
  for (;;) {
    if (await changeProfile(user)) return;
    try {
      await dynamo().send(
        new PutCommand({ TableName: tableName(table), Item: userItem(user), ConditionExpression: 'attribute_not_exists(userId)' }),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

export const usersTableName = () => tableName(table);

export async function listUsers(): Promise<User[]> {
  const items = await scanAll({ TableName: tableName(table) });
  return items.map(decodeUser).sort((a, b) => a.userId.localeCompare(b.userId));
}

/** Creates a user in a transaction's items: refused (its condition fails) when the user id exists. */
export const newUserItem = (user: User): TransactItem => ({
  Put: { TableName: tableName(table), Item: userItem(user), ConditionExpression: 'attribute_not_exists(userId)' },
});

/** Passes while the user exists. */
export const userStillExists = (userId: string): TransactItem => ({
  ConditionCheck: { TableName: tableName(table), Key: { userId }, ConditionExpression: 'attribute_exists(userId)' },
});

const NOT_DISABLED = '(attribute_not_exists(disabled) OR disabled = :false)';

/** Passes while the user exists and is not disabled. */
export const userStillEnabled = (userId: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(table),
    Key: { userId },
    ConditionExpression: `attribute_exists(userId) AND ${NOT_DISABLED}`,
    ExpressionAttributeValues: { ':false': false },
  },
});

/** Passes unless the user is disabled (a user id without an account passes). */
export const userNotDisabled = (userId: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(table),
    Key: { userId },
    ConditionExpression: NOT_DISABLED,
    ExpressionAttributeValues: { ':false': false },
  },
});

/** The condition that the account is linked to `identity` (undefined: to none). */
const linkedTo = (identity: Identity | undefined) =>
  identity
    ? {
        condition: 'oidcIssuer = :linkedIssuer AND oidcSubject = :linkedSubject',
        values: { ':linkedIssuer': identity.issuer, ':linkedSubject': identity.subject },
      }
    : { condition: 'attribute_not_exists(oidcSubject)', values: {} };

/**
 * A sign-in through the identity provider: passes while the account exists, is not disabled and is
 * linked to `identity`; an account linked to none is linked to it in the same write.
 */
export function signInWithIdentity(userId: string, identity: Identity, linked: boolean): TransactItem {
  const Key = { userId };
  if (linked) {
    const { condition, values } = linkedTo(identity);
    return {
      ConditionCheck: {
        TableName: tableName(table),
        Key,
        ConditionExpression: `attribute_exists(userId) AND ${NOT_DISABLED} AND ${condition}`,
        ExpressionAttributeValues: { ':false': false, ...values },
      },
    };
  }
  return {
    Update: {
      TableName: tableName(table),
      Key,
      UpdateExpression: 'SET oidcIssuer = :issuer, oidcSubject = :subject',
      ConditionExpression: `attribute_exists(userId) AND ${NOT_DISABLED} AND attribute_not_exists(oidcSubject)`,
      ExpressionAttributeValues: { ':false': false, ':issuer': identity.issuer, ':subject': identity.subject },
    },
  };
}

/** Links the account to `identity`, only while it exists and is still linked as it was read (`before`). */
export const relinkIdentity = (userId: string, identity: Identity, before: Identity | undefined): TransactItem => {
  const { condition, values } = linkedTo(before);
  return {
    Update: {
      TableName: tableName(table),
      Key: { userId },
      UpdateExpression: 'SET oidcIssuer = :issuer, oidcSubject = :subject',
      ConditionExpression: `attribute_exists(userId) AND ${condition}`,
      ExpressionAttributeValues: { ':issuer': identity.issuer, ':subject': identity.subject, ...values },
    },
  };
};
