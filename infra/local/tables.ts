import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { allTables, type TableDefinition } from '#shared/data/tables.ts';

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
  await Promise.all(allTables.map(createTable));
}

function keySchema(keys: { partitionKey: string; sortKey?: string }): KeySchemaElement[] {
  const schema: KeySchemaElement[] = [{ AttributeName: keys.partitionKey, KeyType: 'HASH' }];
  if (keys.sortKey) schema.push({ AttributeName: keys.sortKey, KeyType: 'RANGE' });
  return schema;
}

async function createTable(table: TableDefinition): Promise<void> {
  const TableName = localTableName(table);
  const indexes = table.globalIndexes ?? [];
  const attributes = new Set([table, ...indexes].flatMap((keys) => [keys.partitionKey, keys.sortKey ?? []].flat()));
  try {
    await dynamo().send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keySchema(table),
        AttributeDefinitions: [...attributes].map((AttributeName): AttributeDefinition => ({ AttributeName, AttributeType: 'S' })),
        GlobalSecondaryIndexes:
          indexes.length > 0
            ? indexes.map((index) => ({
                IndexName: index.name,
                KeySchema: keySchema(index),
                Projection: { ProjectionType: 'ALL' },
              }))
            : undefined,
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  if (!table.timeToLiveAttribute) return;
  const { TimeToLiveDescription } = await dynamo().send(new DescribeTimeToLiveCommand({ TableName }));
  if (TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED') return;
  await dynamo().send(
    new UpdateTimeToLiveCommand({
      TableName,
      TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
    }),
  );
}
