import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { asBookkeeping } from './request-writes.ts';
import { queryAll } from './paging.ts';
import type { Item, ItemRef, ItemSetRef } from './items.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.jobs;
const GRADING = 'grading';

/**
 * The grading queue is kept in this many shards, each a counter item `queue#<n>` holding the last
 * ticket sequence it issued (`tail`) and the last one claimed (`head`), so that a deadline rush
 * spreads its writes over several items instead of contending for one. Tickets interleave the
 * shards (shared/queue/tickets.ts): ticket = sequence × QUEUE_SHARDS + shard. Changing it
 * renumbers every queued ticket, so it is a constant, not a setting.
 */
export const QUEUE_SHARDS = 16;

/**
 * The queue's lanes, served in this order (shared/queue/tickets.ts): a job waits only behind
 * jobs of its own lane and of the lanes before it. Each lane has QUEUE_SHARDS counters of its own.
 */
export const LANES = {
  /** Submissions by a student with no other job queued or being graded, and staff's submissions. */
  first: 0,
  /**
   * Submissions by a student with no other job queued or being graded, made while their course is
   * past COURSE_BURST_PER_MINUTE: behind other courses' first jobs, ahead of anyone's further jobs.
   */
  rush: 1,
  /** Submissions by a student who has other jobs queued or being graded. */
  more: 2,
  /** Regrades (as the reference keeps them in a queue of lower priority). */
  regrade: 3,
} as const;
export const QUEUE_LANES = 4;

export interface QueueShard {
  /** The lane the counter belongs to (absent: the first). */
  readonly lane?: number;
  readonly shard: number;
  readonly head: number;
  readonly tail: number;
  /** Sequence numbers after `head` that were reserved and given up (abandonTicket): no job will take them. */
  readonly abandoned?: readonly number[];
  /**
   * The courses' submissions counted on this counter (reserveTicket), by attribute name
   * (`burst#<course id>#<minute>`, burstAttribute): a course's count this minute is the sum over all counters.
   */
  readonly bursts?: Readonly<Record<string, number>>;
}

/** Every shard's counters, in shard order. */
export type QueueCounters = readonly QueueShard[];

/** A counter's key: the first lane's keep the names they had before there were lanes. */
const shardKey = (lane: number, shard: number) => ({ job: lane === 0 ? `queue#${shard}` : `queue#${lane}#${shard}` });

/** All the queue's counters, every lane's, read together (one round trip with whatever else is read). */
export const queueRef = (): ItemSetRef<QueueCounters> => ({
  table,
  keys: Array.from({ length: QUEUE_LANES * QUEUE_SHARDS }, (_, index) => shardKey(Math.floor(index / QUEUE_SHARDS), index % QUEUE_SHARDS)),
  decodeAll: (items) =>
    items.map((item, index) => ({
      lane: Math.floor(index / QUEUE_SHARDS),
      shard: index % QUEUE_SHARDS,
      head: (item?.head as number | undefined) ?? 0,
      tail: (item?.tail as number | undefined) ?? 0,
      abandoned: [...((item?.abandoned as Set<number> | undefined) ?? [])],
      bursts: Object.fromEntries(
        Object.entries(item ?? {}).filter(([name, value]) => name.startsWith(BURST_PREFIX) && typeof value === 'number'),
      ) as Record<string, number>,
    })),
});

const BURST_PREFIX = 'burst#';
const minuteOf = (now: Date) => Math.floor(now.getTime() / 60_000);

/** The attribute counting a course's submissions in the minute of `now` on a queue counter. */
export const burstAttribute = (term: string, course: string, now: Date): string => `${BURST_PREFIX}${term}/${course}#${minuteOf(now)}`;

/**
 * A course's submissions in the current minute (COURSE_BURST_PER_MINUTE), as counted by the
 * reservations of their tickets (reserveTicket) on the queue's counters, read with them.
 */
export function courseBurst(counters: QueueCounters, term: string, course: string, now: Date): number {
  const name = burstAttribute(term, course, now);
  return counters.reduce((sum, counter) => sum + (counter.bursts?.[name] ?? 0), 0);
}

/** The counts of minutes gone by on a counter (any course's), which its next reservation removes: at most a few at a time. */
const staleBursts = (counter: QueueShard | undefined, now: Date): string[] =>
  Object.keys(counter?.bursts ?? {})
    .filter((name) => Number(name.slice(name.lastIndexOf('#') + 1)) < minuteOf(now))
    .slice(0, 8);

export interface Job {
  readonly ticket: number;
  readonly state: 'queued' | 'grading' | 'graded' | 'failed' | 'void' | 'superseded';
  readonly gradeableKey: string;
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly ownerId: string;
  readonly version: number;
  readonly attempts: number;
  /** While it is graded: when its lease runs out unless its holder renews it (renewLease). */
  readonly leaseExpiresAt?: string;
  /** While it is graded: the claim holding its lease, which every write of the grading conditions on. */
  readonly leaseHolder?: string;
  /** Set on a job queued by a regrade (shared/data/regrades.ts), whose progress it counts when it ends. */
  readonly regradeId?: string;
  /**
   * The commit to grade: the version's recorded commit (a regrade), or the one this job's checkout
   * resolved (recordJobCommit), which a retry after a lost lease grades again.
   */
  readonly commit?: string;
  /**
   * The address of the repository its version was submitted from (a version from git): its grading
   * checks the commit out from there, whatever the gradeable names since. Jobs written without it
   * are graded from the address the gradeable names.
   */
  readonly repository?: string;
  /**
   * The student whose queued-or-running count (loadRef) this job holds until it ends or is
   * superseded: set on a student's own submission only (not on staff's, nor a regrade's), and only
   * such a job can be superseded.
   */
  readonly countedFor?: string;
}

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
  ...(item.leaseHolder ? { leaseHolder: item.leaseHolder as string } : {}),
  ...(item.regradeId ? { regradeId: item.regradeId as string } : {}),
  ...(item.commit ? { commit: item.commit as string } : {}),
  ...(item.repository ? { repository: item.repository as string } : {}),
  ...(item.countedFor ? { countedFor: item.countedFor as string } : {}),
});

export const jobRef = (ticket: number): ItemRef<Job> => ({ table, key: { job: String(ticket) }, decode: decodeJob });

/**
 * Hands out the shard's next `count` sequence numbers (one, by default), provided nobody else took
 * any of the shard's since its counters were read.
 */
export function takeTicket(counters: QueueShard, count = 1): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: shardKey(counters.lane ?? 0, counters.shard),
      UpdateExpression: 'SET tail = :tail',
      ConditionExpression: counters.tail === 0 ? 'attribute_not_exists(tail)' : 'tail = :previous',
      ExpressionAttributeValues: {
        ':tail': counters.tail + count,
        ...(counters.tail === 0 ? {} : { ':previous': counters.tail }),
      },
    },
  };
}

/**
 * Takes the shard's next sequence number whatever others take meanwhile (an atomic counter, never
 * refused): how a submission gets its ticket, with no item shared with other submissions in its
 * transaction. Until its job is written the ticket counts as queued, unless its submission gives it
 * up (abandonTicket); a worker that reaches a ticket without a job voids it (voidTicket).
 * `burst`: the same write counts a course's submission in the current minute (courseBurst) and
 * drops counts of minutes gone by that the counter read before (`counter`) still carried.
 */
export async function reserveTicket(
  shard: number,
  lane = 0,
  burst?: { readonly term: string; readonly course: string; readonly now: Date; readonly counter?: QueueShard },
): Promise<number> {
  const names: Record<string, string> = {};
  let update = 'ADD tail :one';
  if (burst) {
    names['#burst'] = burstAttribute(burst.term, burst.course, burst.now);
    update += ', #burst :one';
    const stale = staleBursts(burst.counter, burst.now);
    stale.forEach((name, index) => (names[`#stale${index}`] = name));
    if (stale.length > 0) update += ` REMOVE ${stale.map((_, index) => `#stale${index}`).join(', ')}`;
  }
  const { Attributes } = await asBookkeeping(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: shardKey(lane, shard),
        UpdateExpression: update,
        ...(burst ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  );
  return Attributes?.tail as number;
}

/**
 * Gives up a reserved sequence number whose job will never be written (its submission was refused
 * or failed after reserving it), so that positions behind it do not count it as queued; when the
 * head passes it (advanceHead) it is forgotten. Nothing is recorded once the head has passed it.
 */
export async function abandonTicket(shard: number, sequence: number, lane = 0): Promise<void> {
  try {
    await asBookkeeping(() => dynamo().send(new UpdateCommand(giveUpSequence(lane, shard, sequence))));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

const giveUpSequence = (lane: number, shard: number, sequence: number) => ({
  TableName: tableName(table),
  Key: shardKey(lane, shard),
  UpdateExpression: 'ADD abandoned :sequence',
  ConditionExpression: 'attribute_not_exists(head) OR head < :number',
  ExpressionAttributeValues: { ':sequence': new Set([sequence]), ':number': sequence },
});

/**
 * Supersedes a queued job (a newer version of the same owner and gradeable replaced it): the job
 * is marked `superseded`, provided it is still queued and counted for `submittedBy` (a student's
 * own submission: staff's and regrades' are graded whatever comes after them). Goes with
 * giveUpSuperseded, so that positions stop counting it at once.
 */
export function supersedeJob(ticket: number, submittedBy: string): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #state = :superseded, finishedAt = :now',
      ConditionExpression: '#state = :queued AND countedFor = :by',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':superseded': 'superseded', ':queued': 'queued', ':by': submittedBy, ':now': new Date().toISOString() },
    },
  };
}

/** A superseded job's ticket, no longer counted by positions (the worker passes it like a ticket given up). */
export const giveUpSuperseded = (lane: number, shard: number, sequence: number): TransactItem => ({
  Update: giveUpSequence(lane, shard, sequence),
});

/** Marks a ticket that has no job as void, provided its job is still not written (the submission then takes another). */
export function voidTicket(ticket: number): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #state = :void',
      ConditionExpression: 'attribute_not_exists(job)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':void': 'void' },
    },
  };
}

/**
 * How many jobs a student has queued or being graded (their own submissions only): the item
 * `load#<user id>`, counted up in the transaction that queues a job and down in the one that ends or
 * supersedes it, so MAX_QUEUED_JOBS_PER_STUDENT holds exactly under concurrent submissions.
 */
export const loadRef = (userId: string): ItemRef<number> => ({
  table,
  key: { job: `load#${userId}` },
  decode: (item) => (item.inFlight as number | undefined) ?? 0,
});

/** Moves a student's count on by `delta`, provided it is still the count read. */
export function countLoad(userId: string, read: number, delta: number): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: `load#${userId}` },
      UpdateExpression: 'ADD inFlight :delta',
      ConditionExpression: read === 0 ? 'attribute_not_exists(inFlight) OR inFlight = :read' : 'inFlight = :read',
      ExpressionAttributeValues: { ':delta': delta, ':read': read },
    },
  };
}

/** One job of the student's ended (graded, failed for good or superseded): it no longer counts. */
export function releaseLoad(userId: string): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: `load#${userId}` },
      UpdateExpression: 'ADD inFlight :minus',
      ExpressionAttributeValues: { ':minus': -1 },
    },
  };
}

export function putJob(job: Omit<Job, 'state' | 'attempts' | 'leaseExpiresAt' | 'leaseHolder'>): TransactItem {
  const { ticket, ...rest } = job;
  return {
    Put: {
      TableName: tableName(table),
      Item: { job: String(ticket), ...rest, state: 'queued', attempts: 0, createdAt: new Date().toISOString() },
      ConditionExpression: 'attribute_not_exists(job)',
    },
  };
}

/**
 * Claims (or passes) the shard's oldest queued ticket: its head moves on by one, in order, so
 * positions stay exact; the sequence passed is no longer counted as abandoned.
 */
export function advanceHead(counters: QueueShard): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: shardKey(counters.lane ?? 0, counters.shard),
      UpdateExpression: 'SET head = :head DELETE abandoned :passed',
      ConditionExpression: counters.head === 0 ? 'attribute_not_exists(head) AND tail >= :head' : 'head = :previous AND tail >= :head',
      ExpressionAttributeValues: {
        ':head': counters.head + 1,
        ':passed': new Set([counters.head + 1]),
        ...(counters.head === 0 ? {} : { ':previous': counters.head }),
      },
    },
  };
}

/** A lease held by `holder`: a job leased before leases named their holder is held by whoever finds it so. */
const heldBy = (holder: string | undefined) =>
  holder === undefined
    ? { condition: 'attribute_not_exists(leaseHolder)', values: {} }
    : { condition: 'leaseHolder = :holder', values: { ':holder': holder } };

/**
 * Takes a queued job for grading, or takes over one whose lease ran out before `now` and that its
 * holder as read (`expected`) still holds: a renewal or another take-over meanwhile refuses it.
 */
export function leaseJob(
  ticket: number,
  lease: { readonly holder: string; readonly expiresAt: string },
  expected: { readonly state: 'queued' } | { readonly holder: string | undefined; readonly now: Date },
): TransactItem {
  const queued = 'state' in expected;
  const held = queued ? { condition: '', values: {} } : heldBy(expected.holder);
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #state = :grading, leaseState = :grading, leaseExpiresAt = :lease, leaseHolder = :taker ADD attempts :one',
      ConditionExpression: queued ? '#state = :queued' : `#state = :grading AND leaseExpiresAt < :now AND ${held.condition}`,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':grading': GRADING,
        ':lease': lease.expiresAt,
        ':taker': lease.holder,
        ':one': 1,
        ...(queued ? { ':queued': 'queued' } : { ':now': expected.now.toISOString(), ...held.values }),
      },
    },
  };
}

/**
 * Moves the lease's expiry on to `expiresAt`, provided `holder` still holds it (nobody took the job
 * over, and it has not ended). False when it does not: the holder then records nothing of the job.
 */
export async function renewLease(ticket: number, holder: string, expiresAt: string): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: { job: String(ticket) },
        UpdateExpression: 'SET leaseExpiresAt = :lease',
        ConditionExpression: '#state = :grading AND leaseHolder = :holder',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':grading': GRADING, ':holder': holder, ':lease': expiresAt },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Records the commit the job's checkout resolved, provided `holder` still holds its lease and the job names no other. */
export function recordJobCommit(ticket: number, holder: string, commit: string): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #commit = :commit',
      ConditionExpression: '#state = :grading AND leaseHolder = :holder AND (attribute_not_exists(#commit) OR #commit = :commit)',
      ExpressionAttributeNames: { '#state': 'state', '#commit': 'commit' },
      ExpressionAttributeValues: { ':grading': GRADING, ':holder': holder, ':commit': commit },
    },
  };
}

/** Ends a job, provided `holder` still holds its lease. */
export function finishJob(ticket: number, state: 'graded' | 'failed', holder: string): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { job: String(ticket) },
      UpdateExpression: 'SET #state = :state, finishedAt = :now REMOVE leaseState, leaseExpiresAt, leaseHolder',
      ConditionExpression: '#state = :grading AND leaseHolder = :holder',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':state': state, ':grading': GRADING, ':holder': holder, ':now': new Date().toISOString() },
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

/** Every job held under a grading lease, whoever holds it (through the byLease index). */
export async function leasedJobs(): Promise<Job[]> {
  const items = await queryAll({
    TableName: tableName(table),
    IndexName: 'byLease',
    KeyConditionExpression: 'leaseState = :grading',
    ExpressionAttributeValues: { ':grading': GRADING },
  });
  return items.map(decodeJob);
}

/**
 * Ends a lease now (its holder is known to be gone), provided `holder` still holds it: the job is
 * then taken over as any job whose lease ran out (expiredLease), its attempt counted. False when
 * its holder finished it or another worker took it meanwhile.
 */
export async function releaseLease(ticket: number, holder: string | undefined, now = new Date()): Promise<boolean> {
  const held = heldBy(holder);
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: { job: String(ticket) },
        UpdateExpression: 'SET leaseExpiresAt = :released',
        ConditionExpression: `#state = :grading AND ${held.condition}`,
        ExpressionAttributeNames: { '#state': 'state' },
        // Just before `now`, so that a claim from now on finds it run out.
        ExpressionAttributeValues: { ':grading': GRADING, ...held.values, ':released': new Date(now.getTime() - 1).toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
