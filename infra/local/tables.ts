import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type KeySchemaElement,
  type Projection,
} from '@aws-sdk/client-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { allTables, type GlobalIndex, type TableDefinition } from '#shared/data/tables.ts';

/** The local name of a table: its logical name behind `TABLE_PREFIX` (each test file has its own). */
export const localTableName = (table: TableDefinition): string => `${process.env.TABLE_PREFIX ?? ''}${table.id}`;

/**
 * Names every local table in this process's environment, as an operator does with the stack's
 * AdminEnvironment output, for code that runs outside any function: the admin command line,
 * seeding, tests of the data layer. Functions never see these: they get their own (functions.ts).
 */
export function useLocalTables(): void {
  for (const table of allTables) process.env[table.environmentVariable] = localTableName(table);
}

/** Creates every table the service uses (from the definitions the CDK stack uses), if missing. */
export async function createTables(): Promise<void> {
  const kept = (await Promise.all(allTables.map(createTable))).filter((table) => table !== undefined);
  await Promise.all(kept.map(requireIndexes));
}

function keySchema(keys: { partitionKey: string; sortKey?: string }): KeySchemaElement[] {
  const schema: KeySchemaElement[] = [{ AttributeName: keys.partitionKey, KeyType: 'HASH' }];
  if (keys.sortKey) schema.push({ AttributeName: keys.sortKey, KeyType: 'RANGE' });
  return schema;
}

const projection = (index: GlobalIndex): Projection =>
  index.attributes ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.attributes] } : { ProjectionType: 'ALL' };

/**
 * A table kept from an older version (a local data folder) that lacks an index added since is
 * refused with what to do: DynamoDB Local fails requests while it fills an index added to a table
 * in use, so the folder is recreated instead.
 */
async function requireIndexes(table: TableDefinition): Promise<void> {
  const TableName = localTableName(table);
  const { Table } = await dynamo().send(new DescribeTableCommand({ TableName }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const missing = (table.globalIndexes ?? []).filter((index) => !present.has(index.name)).map((index) => index.name);
  if (missing.length === 0) return;
  throw new Error(
    `The local table ${TableName} was made by an older version of the service and lacks the index ${missing.join(', ')}. ` +
      'Move the data folder (DATA_DIR, .data by default) away and start again: a new one is made and seeded.',
  );
}

/** Creates the table if missing (with time to live); answers the table when it already existed. */
async function createTable(table: TableDefinition): Promise<TableDefinition | undefined> {
  const TableName = localTableName(table);
  const indexes = table.globalIndexes ?? [];
  const attributes = new Set([table, ...indexes].flatMap((keys) => [keys.partitionKey, keys.sortKey ?? []].flat()));
  let existed = false;
  try {
    await dynamo().send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keySchema(table),
        AttributeDefinitions: [...attributes].map((AttributeName): AttributeDefinition => ({ AttributeName, AttributeType: 'S' })),
        GlobalSecondaryIndexes:
          indexes.length > 0
            ? indexes.map((index) => ({ IndexName: index.name, KeySchema: keySchema(index), Projection: projection(index) }))
            : undefined,
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    existed = true;
  }
  await enableTimeToLive(table);
  return existed ? table : undefined;
}

async function enableTimeToLive(table: TableDefinition): Promise<void> {
  if (!table.timeToLiveAttribute) return;
  const TableName = localTableName(table);
  const { TimeToLiveDescription } = await dynamo().send(new DescribeTimeToLiveCommand({ TableName }));
  if (TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED') return;
  await dynamo().send(
    new UpdateTimeToLiveCommand({
      TableName,
      TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
    }),
  );
}
