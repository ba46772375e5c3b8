import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { allTables, tableName } from '#shared/data/tables.ts';

/** Runs `task` over `items`, at most `limit` at a time. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export type Snapshot = Record<string, Record<string, unknown>[]>;

/** Every item of every table of this test file (by tableName()), sorted by key, as plain JSON. */
export async function snapshotTables(): Promise<Snapshot> {
  const snapshot: Snapshot = {};
  await Promise.all(
    allTables.map(async (table) => {
      const items: Record<string, unknown>[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await dynamo().send(new ScanCommand({ TableName: tableName(table), ConsistentRead: true, ExclusiveStartKey }));
        items.push(...((page.Items ?? []) as Record<string, unknown>[]));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      const keyOf = (item: Record<string, unknown>) => JSON.stringify([item[table.partitionKey], table.sortKey ? item[table.sortKey] : '']);
      snapshot[table.id] = JSON.parse(
        JSON.stringify(items.flatMap(withoutBookkeeping).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0))),
      ) as Record<string, unknown>[];
    }),
  );
  return snapshot;
}

/**
 * An item without what a request may change as bookkeeping and still have written nothing: a
 * queue counter's sequence numbers taken and given up (`tail`, `abandoned`: a submission reserves
 * its ticket before its transaction and gives it up when refused; positions skip it) and its
 * per-minute counts of a course's submissions (`burst#…`: a rate limit counts attempts).
 */
function withoutBookkeeping(item: Record<string, unknown>): Record<string, unknown>[] {
  if (typeof item.job !== 'string' || !item.job.startsWith('queue#')) return [item];
  const kept = Object.entries(item).filter(([name]) => name !== 'tail' && name !== 'abandoned' && !name.startsWith('burst#'));
  // A counter that holds nothing else was only ever bookkeeping.
  return kept.length > 1 ? [Object.fromEntries(kept)] : [];
}

/** The tables whose items differ between two snapshots, with the first differing item of each. */
export function differences(before: Snapshot, after: Snapshot): string[] {
  const changed: string[] = [];
  for (const id of Object.keys(after)) {
    const a = before[id] ?? [];
    const b = after[id]!;
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const left = new Set(a.map((item) => JSON.stringify(item)));
    const right = new Set(b.map((item) => JSON.stringify(item)));
    const added = [...right].filter((item) => !left.has(item));
    const removed = [...left].filter((item) => !right.has(item));
    changed.push(`${id}: +${added.length} -${removed.length} ${(added[0] ?? removed[0] ?? '').slice(0, 300)}`);
  }
  return changed;
}
