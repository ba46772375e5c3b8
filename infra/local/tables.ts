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

async function createTable(table: TableDefinition): Promise<void> {
  const keys: [string, KeySchemaElement['KeyType']][] = [[table.partitionKey, 'HASH']];
  if (table.sortKey) keys.push([table.sortKey, 'RANGE']);
  const TableName = tableName(table);
  try {
    await dynamo().send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keys.map(([AttributeName, KeyType]) => ({ AttributeName, KeyType })),
        AttributeDefinitions: keys.map(
          ([AttributeName]): AttributeDefinition => ({ AttributeName, AttributeType: 'S' }),
        ),
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
