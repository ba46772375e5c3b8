import { QueryCommand, ScanCommand, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item } from './items.ts';

/** Every item of a query, following LastEvaluatedKey. */
export const queryAll = (input: QueryCommandInput): Promise<Item[]> =>
  allPages((ExclusiveStartKey) => dynamo().send(new QueryCommand({ ...input, ExclusiveStartKey })));

/** Every item of a table scan (administration and the nightly run only). */
export const scanAll = (input: ScanCommandInput): Promise<Item[]> =>
  allPages((ExclusiveStartKey) => dynamo().send(new ScanCommand({ ...input, ExclusiveStartKey })));

type Page = { Items?: Item[]; LastEvaluatedKey?: Record<string, unknown> };

async function allPages(read: (startKey: Record<string, unknown> | undefined) => Promise<Page>): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await read(startKey);
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
