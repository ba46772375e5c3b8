import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { scanAll } from './paging.ts';
import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';

const table = tables.users;

/** System access levels of reference.md §4 (1 superuser, 2 faculty, 3 user). */
export const accessLevels = ['superuser', 'faculty', 'user'] as const;
export type AccessLevel = (typeof accessLevels)[number];

export interface User {
  readonly userId: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
  readonly accessLevel: AccessLevel;
}

const decode = (item: Item): User => ({
  userId: item.userId as string,
  givenName: item.givenName as string,
  familyName: item.familyName as string,
  email: item.email as string,
  accessLevel: item.accessLevel as User['accessLevel'],
});

export const userRef = (userId: string): ItemRef<User> => ({ table, key: { userId }, decode });

export async function getUser(userId: string): Promise<User | undefined> {
  const { Item: item } = await dynamo().send(new GetCommand({ TableName: tableName(table), Key: { userId }, ConsistentRead: true }));
  return item ? decode(item) : undefined;
}

/** Only the profile's own fields: nothing else a caller's object carries is ever stored. */
export const userItem = ({ userId, givenName, familyName, email, accessLevel }: User) => ({
  userId,
  givenName,
  familyName,
  email,
  accessLevel,
});

export async function putUser(user: User): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: tableName(table), Item: userItem(user) }));
}

export const usersTableName = () => tableName(table);

export async function listUsers(): Promise<User[]> {
  const items = await scanAll({ TableName: tableName(table) });
  return items.map(decode).sort((a, b) => a.userId.localeCompare(b.userId));
}
