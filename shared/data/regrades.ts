import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

/**
 * Regrades live in the jobs table beside the queue, as `regrade#<id>`: a key no ticket (a number)
 * and not the `queue` item can take. The item counts its versions: selected (`total`), re-queued,
 * skipped (already queued or being graded), and, as the worker ends its jobs, graded and failed.
 */
const table = tables.jobs;
const PREFIX = 'regrade#';

export interface RegradeRecord {
  readonly regradeId: string;
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  /** Versions selected. */
  readonly total: number;
  /** Versions given a new ticket so far. */
  readonly queued: number;
  /** Versions left alone: already queued or being graded. */
  readonly skipped: number;
  /** Re-queued versions whose grading ended, graded or failed. */
  readonly graded: number;
  readonly failed: number;
  readonly requestedBy: string;
  readonly createdAt: string;
}

const decode = (item: Item): RegradeRecord => ({
  regradeId: (item.job as string).slice(PREFIX.length),
  term: item.term as string,
  course: item.course as string,
  gradeableId: item.gradeableId as string,
  total: (item.total as number | undefined) ?? 0,
  queued: (item.queued as number | undefined) ?? 0,
  skipped: (item.skipped as number | undefined) ?? 0,
  graded: (item.graded as number | undefined) ?? 0,
  failed: (item.failed as number | undefined) ?? 0,
  requestedBy: item.requestedBy as string,
  createdAt: item.createdAt as string,
});

export const regradeRef = (regradeId: string): ItemRef<RegradeRecord> => ({ table, key: { job: PREFIX + regradeId }, decode });

/** Creates the regrade, with the counts of its first step (written in that step's transaction). */
export function putRegrade(record: RegradeRecord): TransactItem {
  const { regradeId, ...rest } = record;
  return {
    Put: {
      TableName: tableName(table),
      Item: { job: PREFIX + regradeId, kind: 'regrade', ...rest },
      ConditionExpression: 'attribute_not_exists(job)',
    },
  };
}

/** Adds the counts of a further step (re-queued and skipped versions) to an existing regrade. */
export function addRegradeCounts(regradeId: string, counts: { queued: number; skipped: number }): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: PREFIX + regradeId },
      UpdateExpression: 'ADD queued :queued, skipped :skipped',
      ConditionExpression: 'attribute_exists(job)',
      ExpressionAttributeValues: { ':queued': counts.queued, ':skipped': counts.skipped },
    },
  };
}

/**
 * Counts one re-queued version whose grading ended, in the transaction that ends its job (so each
 * job is counted once: that transaction holds only while the worker holds the job's lease).
 */
export function countRegradeOutcome(regradeId: string, outcome: 'graded' | 'failed'): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: PREFIX + regradeId },
      UpdateExpression: 'ADD #outcome :one',
      ExpressionAttributeNames: { '#outcome': outcome },
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/**
 * Ends the selection of a regrade that stopped part way (a failed transaction): `total` becomes
 * what was queued or skipped, so its progress still reaches `done` once those are graded.
 */
export function closeRegrade(regradeId: string): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: PREFIX + regradeId },
      UpdateExpression: 'SET #total = queued + skipped',
      ConditionExpression: 'attribute_exists(job)',
      ExpressionAttributeNames: { '#total': 'total' },
    },
  };
}
