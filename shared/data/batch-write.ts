import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { chunks } from '#shared/lists.ts';
import { dynamo } from './client.ts';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const BATCH_SIZE = 25;
const MAX_RETRIES = 8;

/**
 * Puts and deletes many items with BatchWriteItem, 25 a request and up to `parallel` requests at
 * once, retrying whatever DynamoDB leaves unprocessed. Not atomic: for bulk imports only.
 */
export async function batchWrite(
  requests: readonly { tableName: string; request: WriteRequest }[],
  options: { parallel?: number; onProgress?: (written: number) => void } = {},
): Promise<void> {
  let written = 0;
  const waiting = chunks(requests, BATCH_SIZE).values();
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure) {
      const { done, value: chunk } = waiting.next();
      if (done) return;
      try {
        await writeChunk(chunk);
      } catch (error) {
        failure ??= { error };
        return;
      }
      written += chunk.length;
      options.onProgress?.(written);
    }
  };
  // On a failure no new chunk starts, and the call returns only once no write is in flight, so a
  // caller that cleans up after a failure sees every item that was written.
  await Promise.all(Array.from({ length: options.parallel ?? 4 }, worker));
  if (failure) throw failure.error;
}

async function writeChunk(chunk: readonly { tableName: string; request: WriteRequest }[]): Promise<void> {
  let pending: Record<string, WriteRequest[]> = {};
  for (const { tableName, request } of chunk) (pending[tableName] ??= []).push(request);
  for (let attempt = 0; Object.keys(pending).length > 0; attempt++) {
    if (attempt > MAX_RETRIES) throw new Error('BatchWriteItem left items unprocessed');
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
    const output = await dynamo().send(new BatchWriteCommand({ RequestItems: pending }));
    pending = (output.UnprocessedItems ?? {}) as typeof pending;
  }
}
