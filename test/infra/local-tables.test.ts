import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createTables, localTableName, useLocalTables } from '#infra/local/tables.ts';
import { dynamo } from '#shared/data/client.ts';
import { tables } from '#shared/data/tables.ts';

describe('local tables', () => {
  it('refuses a table kept from an older version (a local data folder) that lacks an index added since, saying what to do', async () => {
    process.env.TABLE_PREFIX = `old${Date.now().toString(36)}-`;
    useLocalTables();
    // The Submissions table as it was before the byStudent index.
    await dynamo().send(
      new CreateTableCommand({
        TableName: localTableName(tables.submissions),
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'gradeableKey', KeyType: 'HASH' },
          { AttributeName: 'ownerId', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: ['gradeableKey', 'ownerId'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      }),
    );
    await expect(createTables()).rejects.toThrow(
      /Submissions was made by an older version .* lacks the index byStudent\. Move the data folder/,
    );
    // Tables of the current version pass.
    process.env.TABLE_PREFIX = `new${Date.now().toString(36)}-`;
    useLocalTables();
    await createTables();
    await expect(createTables()).resolves.toBeUndefined();
  });
});
