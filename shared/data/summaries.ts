import { courseId } from './keys.ts';
import { batchWrite } from './batch-write.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { dynamo } from './client.ts';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableName, tables } from './tables.ts';

const table = tables.summaries;
const entry = (generation: string, userId: string) => `${generation}#${userId}`;

export type SummaryDocument = Record<string, unknown> & { user_id: string };

const decode = (item: Item): SummaryDocument => JSON.parse(item.document as string) as SummaryDocument;

export const summaryRef = (term: string, course: string, generation: string, userId: string): ItemRef<SummaryDocument> => ({
  table,
  key: { courseId: courseId(term, course), entry: entry(generation, userId) },
  decode,
});

/** Writes one generation's summaries in batches (as JSON text, so their key order survives). */
export async function writeSummaries(term: string, course: string, generation: string, documents: readonly SummaryDocument[]) {
  await batchWrite(
    documents.map((document) => ({
      tableName: tableName(table),
      request: {
        PutRequest: {
          Item: { courseId: courseId(term, course), entry: entry(generation, document.user_id), document: JSON.stringify(document) },
        },
      },
    })),
  );
}

export async function summariesOf(term: string, course: string, generation: string): Promise<SummaryDocument[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :course AND begins_with(entry, :prefix)',
    ExpressionAttributeValues: { ':course': courseId(term, course), ':prefix': `${generation}#` },
  });
  return items.map(decode);
}

/**
 * One page of a generation's summaries in user id order: at most `size` after the user `after`,
 * ending early once their JSON reaches `maxBytes` (at least one). Reads about the page and one item
 * more (to tell whether another page follows), never the whole generation.
 */
export async function summariesPage(
  term: string,
  course: string,
  generation: string,
  page: { readonly after: string | undefined; readonly size: number; readonly maxBytes: number },
): Promise<{ summaries: SummaryDocument[]; more: boolean }> {
  const documents: string[] = [];
  let startKey: Record<string, unknown> | undefined =
    page.after === undefined ? undefined : { courseId: courseId(term, course), entry: entry(generation, page.after) };
  let bytes = 2;
  let more = false;
  do {
    const answer = await dynamo().send(
      new QueryCommand({
        TableName: tableName(table),
        KeyConditionExpression: 'courseId = :course AND begins_with(entry, :prefix)',
        ExpressionAttributeValues: { ':course': courseId(term, course), ':prefix': `${generation}#` },
        ExclusiveStartKey: startKey,
        Limit: page.size + 1 - documents.length,
      }),
    );
    for (const item of answer.Items ?? []) {
      const document = item.document as string;
      bytes += Buffer.byteLength(document) + 1;
      if (documents.length === page.size || (documents.length > 0 && bytes > page.maxBytes)) {
        more = true;
        break;
      }
      documents.push(document);
    }
    startKey = answer.LastEvaluatedKey;
  } while (!more && startKey);
  return { summaries: documents.map((document) => JSON.parse(document) as SummaryDocument), more };
}

/** Removes a generation nobody reads any more. */
export async function deleteGeneration(term: string, course: string, generation: string): Promise<void> {
  const keys = (await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'courseId = :course AND begins_with(entry, :prefix)',
    ExpressionAttributeValues: { ':course': courseId(term, course), ':prefix': `${generation}#` },
    ProjectionExpression: 'courseId, entry',
  })) as Record<string, string>[];
  await batchWrite(keys.map((Key) => ({ tableName: tableName(table), request: { DeleteRequest: { Key } } })));
}
