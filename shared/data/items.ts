import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { tableName, type TableDefinition } from './tables.ts';

export type Item = Record<string, unknown>;
export type Key = Record<string, string>;

/** A reference to one item and how to read it: the unit a handler declares it needs. */
export interface ItemRef<T> {
  readonly table: TableDefinition;
  readonly key: Key;
  readonly decode: (item: Item) => T;
}

/** A reference to several items of one table read as one value (each absent item given as `undefined`). */
export interface ItemSetRef<T> {
  readonly table: TableDefinition;
  readonly keys: readonly Key[];
  readonly decodeAll: (items: readonly (Item | undefined)[]) => T;
}

export type ItemRefs = Record<string, ItemRef<unknown> | ItemSetRef<unknown>>;
export type LoadedItems<Refs extends ItemRefs> = {
  [Name in keyof Refs]: NonNullable<Refs[Name]> extends ItemSetRef<infer T>
    ? T
    : NonNullable<Refs[Name]> extends ItemRef<infer T>
      ? T | undefined
      : never;
};

const MAX_UNPROCESSED_RETRIES = 5;
/** BatchGetItem's limit of keys per request. */
const KEYS_PER_REQUEST = 100;

type RequestItems = Record<
  string,
  { Keys: Key[]; ConsistentRead: true; ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> }
>;

/**
 * Reads every referenced item with strongly consistent BatchGetItem requests: one round trip for
 * up to 100 keys whatever the tables (more keys go out in parallel), retrying only keys DynamoDB
 * leaves unprocessed.
 */
export async function getItems<Refs extends ItemRefs>(refs: Refs): Promise<LoadedItems<Refs>> {
  const entries = Object.entries(refs);
  const found = new Map<string, Item>();
  const definitions = new Map<string, TableDefinition>();
  const unique = new Map<string, { name: string; key: Key }>();
  for (const [, ref] of entries) {
    const name = tableName(ref.table);
    definitions.set(name, ref.table);
    for (const key of keysOf(ref)) unique.set(identity(ref.table, name, key), { name, key });
  }
  const requests: RequestItems[] = [];
  [...unique.values()].forEach(({ name, key }, index) => {
    const request = (requests[Math.floor(index / KEYS_PER_REQUEST)] ??= {});
    (request[name] ??= { Keys: [], ConsistentRead: true }).Keys.push(key);
  });

  await sendBatches(requests, (name, item) => {
    const definition = definitions.get(name);
    if (!definition) throw new Error(`BatchGetItem answered for the table ${name}, which it was not asked about`);
    found.set(identity(definition, name, item), item);
  });

  const loaded: Record<string, unknown> = {};
  for (const [refName, ref] of entries) {
    const items = keysOf(ref).map((key) => found.get(identity(ref.table, tableName(ref.table), key)));
    if ('decodeAll' in ref) loaded[refName] = ref.decodeAll(items);
    else loaded[refName] = items[0] === undefined ? undefined : ref.decode(items[0]);
  }
  return loaded as LoadedItems<Refs>;
}

/** Sends BatchGetItem requests in parallel, retrying only keys DynamoDB leaves unprocessed; `found` gets every item answered. */
async function sendBatches(requests: readonly RequestItems[], found: (tableName: string, item: Item) => void): Promise<void> {
  await Promise.all(
    requests.map(async (initial) => {
      let requestItems = initial;
      for (let attempt = 0; Object.keys(requestItems).length > 0; attempt++) {
        if (attempt > MAX_UNPROCESSED_RETRIES) throw new Error('BatchGetItem left keys unprocessed');
        if (attempt > 0) await sleep(25 * 2 ** attempt);
        const output = await dynamo().send(new BatchGetCommand({ RequestItems: requestItems }));
        for (const [name, items] of Object.entries(output.Responses ?? {})) for (const item of items) found(name, item);
        requestItems = (output.UnprocessedKeys ?? {}) as RequestItems;
      }
    }),
  );
}

/**
 * A few attributes of many items of one table (strongly consistent, 100 keys a request, in
 * parallel), in the order of `keys` (undefined where there is no item). `attributes` are plain
 * attribute names; the table's key attributes are always read too.
 */
export async function getAttributes(
  table: TableDefinition,
  keys: readonly Key[],
  attributes: readonly string[],
): Promise<(Item | undefined)[]> {
  const name = tableName(table);
  const keyNames = table.sortKey ? [table.partitionKey, table.sortKey] : [table.partitionKey];
  // Named through placeholders: an attribute may be a reserved word.
  const names = Object.fromEntries([...new Set([...keyNames, ...attributes])].map((attribute, index) => [`#a${index}`, attribute]));
  const projection = { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names };
  const unique = new Map(keys.map((key) => [identity(table, name, key), key]));
  const requests: RequestItems[] = [];
  [...unique.values()].forEach((key, index) => {
    const request = (requests[Math.floor(index / KEYS_PER_REQUEST)] ??= {});
    (request[name] ??= { Keys: [], ConsistentRead: true, ...projection }).Keys.push(key);
  });
  const found = new Map<string, Item>();
  await sendBatches(requests, (_, item) => found.set(identity(table, name, item), item));
  return keys.map((key) => found.get(identity(table, name, key)));
}

const keysOf = (ref: ItemRef<unknown> | ItemSetRef<unknown>): readonly Key[] => ('keys' in ref ? ref.keys : [ref.key]);

/** The item's key attributes (as its table defines them), as a map key. */
function identity(table: TableDefinition, name: string, item: Item): string {
  const keyNames = table.sortKey ? [table.partitionKey, table.sortKey] : [table.partitionKey];
  return JSON.stringify([name, ...keyNames.map((keyName) => item[keyName])]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
