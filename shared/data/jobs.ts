import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.jobs;
const QUEUE = 'queue';
const GRADING = 'grading';

/** The queue: tickets are handed out in order (`tail`) and claimed in order (`head`). */
export interface QueueCounters {
  readonly head: number;
  readonly tail: number;
}

export interface Job {
  readonly ticket: number;
  readonly state: 'queued' | 'grading' | 'graded' | 'failed';
  readonly gradeableKey: string;
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly ownerId: string;
  readonly version: number;
  readonly attempts: number;
  readonly leaseExpiresAt?: string;
  /** Set on a job queued by a regrade (shared/data/regrades.ts), whose progress it counts when it ends. */
  readonly regradeId?: string;
  /**
   * The commit to grade: the version's recorded commit (a regrade), or the one this job's checkout
   * resolved (recordJobCommit), which a retry after a lost lease grades again.
   */
  readonly commit?: string;
}

export const queueRef = (): ItemRef<QueueCounters> => ({
  table,
  key: { job: QUEUE },
  decode: (item: Item) => ({ head: (item.head as number | undefined) ?? 0, tail: (item.tail as number | undefined) ?? 0 }),
});

const decodeJob = (item: Item): Job => ({
  ticket: Number(item.job),
  state: item.state as Job['state'],
  gradeableKey: item.gradeableKey as string,
  term: item.term as string,
  course: item.course as string,
  gradeableId: item.gradeableId as string,
  ownerId: item.ownerId as string,
  version: item.version as number,
  attempts: (item.attempts as number | undefined) ?? 0,
  leaseExpiresAt: item.leaseExpiresAt as string | undefined,
  ...(item.regradeId ? { regradeId: item.regradeId as string } : {}),
  ...(item.commit ? { commit: item.commit as string } : {}),
});

export const jobRef = (ticket: number): ItemRef<Job> => ({ table, key: { job: String(ticket) }, decode: decodeJob });

/**
 * Hands out tickets `counters.tail + 1` to `counters.tail + count` (one, by default), provided
 * nobody else took any since the counters were read.
 */
export function takeTicket(counters: QueueCounters, count = 1): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: QUEUE },
      UpdateExpression: 'SET tail = :ticket',
      ConditionExpression: counters.tail === 0 ? 'attribute_not_exists(tail)' : 'tail = :previous',
      ExpressionAttributeValues: { ':ticket': counters.tail + count, ...(counters.tail === 0 ? {} : { ':previous': counters.tail }) },
    },
  };
}

export function putJob(job: Omit<Job, 'state' | 'attempts' | 'leaseExpiresAt'>): TransactItem {
  const { ticket, ...rest } = job;
  return {
    Put: {
      TableName: tableName(table),
      Item: { job: String(ticket), ...rest, state: 'queued', attempts: 0, createdAt: new Date().toISOString() },
      ConditionExpression: 'attribute_not_exists(job)',
    },
  };
}

/** Claims the oldest queued ticket: head moves on by one, in order, so positions stay exact. */
export function advanceHead(counters: QueueCounters): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: QUEUE },
      UpdateExpression: 'SET head = :ticket',
      ConditionExpression: counters.head === 0 ? 'attribute_not_exists(head) AND tail >= :ticket' : 'head = :previous AND tail >= :ticket',
      ExpressionAttributeValues: { ':ticket': counters.head + 1, ...(counters.head === 0 ? {} : { ':previous': counters.head }) },
    },
  };
}

/** Takes (or takes over) a job for grading under a lease; `expected` guards against a race. */
export function leaseJob(ticket: number, leaseExpiresAt: string, expected: { state: 'queued' } | { leaseExpiresAt: string }): TransactItem {
  const queued = 'state' in expected;
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #state = :grading, leaseState = :grading, leaseExpiresAt = :lease ADD attempts :one',
      ConditionExpression: queued ? '#state = :queued' : '#state = :grading AND leaseExpiresAt = :expected',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':grading': GRADING,
        ':lease': leaseExpiresAt,
        ':one': 1,
        ...(queued ? { ':queued': 'queued' } : { ':expected': expected.leaseExpiresAt }),
      },
    },
  };
}

/** Records the commit the job's checkout resolved, provided this worker still holds its lease and the job names no other. */
export function recordJobCommit(ticket: number, lease: string, commit: string): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #commit = :commit',
      ConditionExpression: '#state = :grading AND leaseExpiresAt = :lease AND (attribute_not_exists(#commit) OR #commit = :commit)',
      ExpressionAttributeNames: { '#state': 'state', '#commit': 'commit' },
      ExpressionAttributeValues: { ':grading': GRADING, ':lease': lease, ':commit': commit },
    },
  };
}

/** Ends a job, provided this worker still holds its lease. */
export function finishJob(ticket: number, state: 'graded' | 'failed', lease: string): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #state = :state, finishedAt = :now REMOVE leaseState, leaseExpiresAt',
      ConditionExpression: '#state = :grading AND leaseExpiresAt = :lease',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':state': state, ':grading': GRADING, ':lease': lease, ':now': new Date().toISOString() },
    },
  };
}

/** The job whose grading lease ran out longest ago, if any (one query, whatever the queue's length). */
export async function expiredLease(now: Date): Promise<Job | undefined> {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(table),
      IndexName: 'byLease',
      KeyConditionExpression: 'leaseState = :grading AND leaseExpiresAt < :now',
      ExpressionAttributeValues: { ':grading': GRADING, ':now': now.toISOString() },
      Limit: 1,
    }),
  );
  return Items[0] ? decodeJob(Items[0]) : undefined;
}
