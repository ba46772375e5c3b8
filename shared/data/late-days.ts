import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { courseId } from './keys.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, transactWrite, type TransactItem } from './transactions.ts';

const table = tables.lateDays;

/** From `since` (an instant) on, the student's budget is `allowed` days in all (as the reference's late-day update does). */
export interface LateDayGrant {
  readonly since: string;
  readonly allowed: number;
}

/** An extension for one student on one gradeable: days late that are neither charged nor bad. */
export interface LateDayExtension {
  readonly days: number;
  readonly reason: string;
}

/** One student's late days in a course; absent items read as no grant and no extension. */
export interface StudentLateDays {
  readonly userId: string;
  /** In time order. */
  readonly grants: readonly LateDayGrant[];
  /** By gradeable id. */
  readonly extensions: Readonly<Record<string, LateDayExtension>>;
}

/**
 * Stored as maps, so that every change is one path of the item and concurrent changes never lose
 * each other: `grants` maps the instant a grant starts to its days (a second grant from the same
 * instant replaces the first, as the reference's key (user, since) does), `extensions` maps a
 * gradeable id to `{days, reason}`.
 */
const decode = (item: Item): StudentLateDays => ({
  userId: item.userId as string,
  grants: Object.entries((item.grants as Record<string, number> | undefined) ?? {})
    .map(([since, allowed]) => ({ since, allowed: Number(allowed) }))
    .sort((a, b) => Date.parse(a.since) - Date.parse(b.since)),
  extensions: Object.fromEntries(
    Object.entries((item.extensions as Record<string, LateDayExtension> | undefined) ?? {}).map(([id, extension]) => [
      id,
      { days: Number(extension.days), reason: String(extension.reason ?? '') },
    ]),
  ),
});

export const noLateDays = (userId: string): StudentLateDays => ({ userId, grants: [], extensions: {} });

const key = (term: string, course: string, userId: string) => ({ courseId: courseId(term, course), userId });

export const lateDaysRef = (term: string, course: string, userId: string): ItemRef<StudentLateDays> => ({
  table,
  key: key(term, course, userId),
  decode,
});

/** Every student's late days in a course that has any (one paged, strongly consistent query). */
export async function lateDaysOfCourse(term: string, course: string): Promise<StudentLateDays[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :courseId',
    ExpressionAttributeValues: { ':courseId': courseId(term, course) },
    ConsistentRead: true,
  });
  return items.map(decode);
}

/**
 * Adds a grant (replacing one from the same instant). `known`, the student's item as read before
 * (undefined: none), picks the write that usually succeeds first: one round trip. `alongside` is
 * written in the grant's transaction.
 */
export const putGrant = (
  term: string,
  course: string,
  userId: string,
  grant: LateDayGrant,
  known?: StudentLateDays,
  alongside: readonly TransactItem[] = [],
) => setEntry(key(term, course, userId), 'grants', grant.since, grant.allowed, known !== undefined && known.grants.length > 0, alongside);

/** Sets a student's extension on a gradeable, or removes it (`undefined`); `known` and `alongside` as for putGrant. */
export const putExtension = (
  term: string,
  course: string,
  userId: string,
  gradeableId: string,
  extension: LateDayExtension | undefined,
  known?: StudentLateDays,
  alongside: readonly TransactItem[] = [],
) =>
  setEntry(
    key(term, course, userId),
    'extensions',
    gradeableId,
    extension && { days: extension.days, reason: extension.reason },
    known !== undefined && Object.keys(known.extensions).length > 0,
    alongside,
  );

const MAX_ATTEMPTS = 10;

/**
 * Sets (or removes) one entry of the item's map `attribute`, each a single conditional UpdateItem:
 * the entry alone when the map exists, the whole map when it does not (which creates the item).
 * When another writer created or emptied the map in between, the other write follows.
 */
async function setEntry(
  itemKey: Record<string, string>,
  attribute: 'grants' | 'extensions',
  entry: string,
  value: unknown,
  mapLikelyExists: boolean,
  alongside: readonly TransactItem[] = [],
): Promise<void> {
  const names = { '#map': attribute, '#entry': entry };
  const setEntryWrite = () =>
    update(
      value === undefined
        ? { UpdateExpression: 'REMOVE #map.#entry', ExpressionAttributeNames: names }
        : { UpdateExpression: 'SET #map.#entry = :value', ExpressionAttributeNames: names, ExpressionAttributeValues: { ':value': value } },
      itemKey,
      'attribute_exists(#map)',
      alongside,
    );
  const createMapWrite = () =>
    update(
      {
        UpdateExpression: 'SET #map = :map',
        ExpressionAttributeNames: { '#map': attribute },
        ExpressionAttributeValues: { ':map': { [entry]: value } },
      },
      itemKey,
      'attribute_not_exists(#map)',
      alongside,
    );
  // Removing from a map that does not exist removes nothing: the entry write alone decides.
  let mapExists = mapLikelyExists || value === undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await (mapExists ? setEntryWrite() : createMapWrite())) return;
    if (value === undefined) return;
    mapExists = !mapExists;
  }
  throw new Error(`Could not change ${attribute} of ${itemKey.courseId}/${itemKey.userId}: too much contention`);
}

async function update(
  expression: {
    UpdateExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  },
  itemKey: Record<string, string>,
  condition: string,
  alongside: readonly TransactItem[],
): Promise<boolean> {
  const write = { TableName: tableName(table), Key: itemKey, ConditionExpression: condition, ...expression };
  try {
    if (alongside.length === 0) await dynamo().send(new UpdateCommand(write));
    else await transactWrite([{ Update: write }, ...alongside]);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || failedConditions(error).includes(0)) return false;
    throw error;
  }
}
