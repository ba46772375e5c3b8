/**
 * Times one class-list import of `rows` new students (2,000 by default), then the same list again,
 * against a DynamoDB Local of its own: `node bench/class-list-import.ts [rows]`. Prints the
 * measurement; the bench's scale section records the 1,000-row one.
 */
import './setup-env.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { createTables, useLocalTables } from '#infra/local/tables.ts';
import { measureClassListImport } from './scale.ts';

const rows = Number(process.argv[2] ?? 2000);
const dynamoDb = await startDynamoDbLocal();
try {
  process.env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
  process.env.TABLE_PREFIX = 'import-';
  useLocalTables();
  await createTables();
  const result = await measureClassListImport(rows);
  for (const row of result.rows) console.log(`${row.name}: ${row.measured}`);
} finally {
  await dynamoDb.stop();
}
