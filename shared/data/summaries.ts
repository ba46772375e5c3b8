import { courseId } from './keys.ts';
import { batchWrite } from './batch-write.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
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
