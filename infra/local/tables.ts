import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { allTables, tableName, type TableDefinition } from '#shared/data/tables.ts';

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
  const TableName = tableName(table);
  const indexes = table.globalIndexes ?? [];
  const attributes = new Set([table, ...indexes].flatMap((keys) => [keys.partitionKey, keys.sortKey ?? []].flat()));
  try {
    await dynamo().send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keySchema(table),
        AttributeDefinitions: [...attributes].map(
          (AttributeName): AttributeDefinition => ({ AttributeName, AttributeType: 'S' }),
        ),
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
