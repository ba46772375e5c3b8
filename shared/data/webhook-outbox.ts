import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const outbox = tables.webhookOutbox;

/**
 * One queue message waiting in the outbox: its id, its body as queued, when it was recorded, and
 * its queue: the webhook queue unless `queue` names another (`lti-scores`, shared/lti/score-queue.ts).
 */
export interface OutboxEntry {
  readonly messageId: string;
  readonly body: string;
  readonly recordedAt: string;
  readonly queue?: string;
}

/**
 * The outbox entry of a message, to write in the transaction of what causes it. Its id is the
 * message's own (an event's id), so writing it twice keeps one entry.
 */
export const outboxPut = (entry: OutboxEntry): TransactItem => ({
  Put: { TableName: tableName(outbox), Item: { ...entry } },
});

/** Up to `limit` entries of the outbox, in no order, with whether more may be left. */
export async function outboxEntries(limit: number): Promise<{ entries: OutboxEntry[]; more: boolean }> {
  const entries: OutboxEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({ TableName: tableName(outbox), ConsistentRead: true, Limit: limit - entries.length, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? [])
      entries.push({
        messageId: item.messageId as string,
        body: item.body as string,
        recordedAt: item.recordedAt as string,
        ...(typeof item.queue === 'string' ? { queue: item.queue } : {}),
      });
    startKey = page.LastEvaluatedKey;
  } while (startKey && entries.length < limit);
  return { entries, more: startKey !== undefined };
}

/** Removes an entry once its message is on the queue (nothing when it went already). */
export async function removeOutboxEntry(messageId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: tableName(outbox), Key: { messageId } }));
}
