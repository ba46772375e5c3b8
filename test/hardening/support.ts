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
 * An item without what a request may change as bookkeeping and still have written nothing: on a
 * queue counter, the per-minute counts of a course's submissions (`burst#…`: a rate limit counts
 * attempts) and, on the counters of before, the sequence numbers taken and given up (`tail`,
 * `abandoned`). The tickets a counter holds (`queued`) are kept, as a sorted list: a submission
 * adds its ticket before its transaction and must take it out again when refused.
 */
function withoutBookkeeping(item: Record<string, unknown>): Record<string, unknown>[] {
  if (typeof item.job !== 'string' || !/^(queue|tickets)#/.test(item.job)) return [item];
  const kept = Object.entries(item)
    .filter(([name]) => name !== 'tail' && name !== 'abandoned' && !name.startsWith('burst#'))
    .map(([name, value]) => [name, value instanceof Set ? [...(value as Set<number>)].sort((a, b) => a - b) : value]);
  // A counter that holds nothing else (no ticket) was only ever bookkeeping.
  return kept.some(([name, value]) => name !== 'job' && !(Array.isArray(value) && value.length === 0)) ? [Object.fromEntries(kept)] : [];
}

/**
 * The snapshot without the tickets that have no job: a submission whose transaction's outcome is
 * unknown keeps its reserved ticket (its job may have been written), counted as queued until a
 * worker finds no job for it and voids it.
 */
export function withoutJoblessTickets(snapshot: Snapshot): Snapshot {
  const jobs = snapshot.Jobs ?? [];
  const tickets = new Set(jobs.map((item) => item.job).filter((job) => typeof job === 'string' && /^\d+$/.test(job)));
  const counters = jobs.flatMap((item) => {
    if (typeof item.job !== 'string' || !item.job.startsWith('tickets#') || !Array.isArray(item.queued)) return [item];
    const queued = (item.queued as number[]).filter((ticket) => tickets.has(String(ticket)));
    const kept = { ...item, queued };
    return queued.length > 0 || Object.keys(kept).length > 2 ? [kept] : [];
  });
  return { ...snapshot, Jobs: counters };
}

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
