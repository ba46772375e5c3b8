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
 * The grading queue is kept on this many counter items, `tickets#<n>`, each holding the set of
 * the queued tickets issued on it (`queued`, a number set) and the counts of courses'
 * submissions per minute (`burst#…`), so that a deadline rush spreads its writes over several
 * items instead of contending for one. A ticket names its counter (shared/queue/tickets.ts), so it
 * is unique as soon as its counter's set takes it. Changing it renumbers every queued ticket, so it
 * is a constant, not a setting.
 */
export const QUEUE_SHARDS = 16;

/**
 * The queue's lanes, served in this order (shared/queue/tickets.ts): a job waits only behind
 * jobs of its own lane and of the lanes before it. A ticket carries its lane; every counter holds
 * tickets of every lane.
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
  readonly shard: number;
  /** The tickets queued on this counter (reserved and not yet claimed, given up or superseded), lowest first. */
  readonly queued: readonly number[];
  /**
   * The courses' first-lane submissions counted on this counter (reserveTicket), by attribute name
   * (`burst#<course id>#<minute>`, burstAttribute): a course's count this minute is the sum over its counters of the minute.
   */
  readonly bursts?: Readonly<Record<string, number>>;
}

/** Queue counters as read: all of them (queueRef), or a course's counters of the minute (countersRef). */
export type QueueCounters = readonly QueueShard[];

const shardKey = (shard: number) => ({ job: `tickets#${shard}` });

const decodeCounter = (shard: number, item: Item | undefined): QueueShard => ({
  shard,
  queued: [...((item?.queued as Set<number> | undefined) ?? [])].sort((a, b) => a - b),
  bursts: Object.fromEntries(
    Object.entries(item ?? {}).filter(([name, value]) => name.startsWith(BURST_PREFIX) && typeof value === 'number'),
  ) as Record<string, number>,
});

/** The named counters, read together (one round trip with whatever else is read). */
export const countersRef = (shards: readonly number[]): ItemSetRef<QueueCounters> => ({
  table,
  keys: shards.map(shardKey),
  decodeAll: (items) => shards.map((shard, index) => decodeCounter(shard, items[index])),
});

/** All the queue's counters: what positions, claims and the queue's depth are read from. */
export const queueRef = (): ItemSetRef<QueueCounters> => countersRef(Array.from({ length: QUEUE_SHARDS }, (_, shard) => shard));

const BURST_PREFIX = 'burst#';
const minuteOf = (now: Date) => Math.floor(now.getTime() / 60_000);

/** The attribute counting a course's submissions in the minute of `now` on a queue counter. */
export const burstAttribute = (term: string, course: string, now: Date): string => `${BURST_PREFIX}${term}/${course}#${minuteOf(now)}`;

/**
 * A course's first-lane submissions in the current minute (COURSE_BURST_PER_MINUTE), as counted
 * by the reservations of their tickets (reserveTicket) on the counters read: exact when those are
 * the course's counters of the minute (courseShards), which take every such count.
 */
export function courseBurst(counters: QueueCounters, term: string, course: string, now: Date): number {
  const name = burstAttribute(term, course, now);
  return counters.reduce((sum, counter) => sum + (counter.bursts?.[name] ?? 0), 0);
}

/** The counts of minutes gone by on a counter (any course's), which its next counted reservation removes: at most a few at a time. */
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
 * Adds `tickets` (a regrade chunk's, all on counter `shard`) to the queue, provided none is queued
 * there already.
 */
export function takeTickets(shard: number, tickets: readonly number[]): TransactItem {
  const values = Object.fromEntries(tickets.map((ticket, index) => [`:t${index}`, ticket]));
  return {
    Update: {
      TableName: tableName(table),
      Key: shardKey(shard),
      UpdateExpression: 'ADD queued :tickets',
      ConditionExpression: tickets.map((_, index) => `NOT contains(queued, :t${index})`).join(' AND '),
      ExpressionAttributeValues: { ':tickets': new Set(tickets), ...values },
    },
  };
}

/**
 * Adds a submission's ticket to the set of counter `shard` without reading it (one UpdateItem that
 * no other submission's transaction waits on); false when the counter holds the same ticket
 * already (another submission drew it in the same millisecond: draw another). Until its job is
 * written the ticket counts as queued, unless its submission gives it up (abandonTicket); a worker
 * that reaches a ticket without a job voids it (voidTicket). `burst`: the same write counts a
 * course's first-lane submission in the current minute (courseBurst) and drops counts of minutes
 * gone by that the counter as read (`counter`) still carried.
 */
export async function reserveTicket(
  shard: number,
  ticket: number,
  burst?: { readonly term: string; readonly course: string; readonly now: Date; readonly counter?: QueueShard },
): Promise<boolean> {
  const names: Record<string, string> = {};
  let update = 'ADD queued :ticketSet';
  if (burst) {
    names['#burst'] = burstAttribute(burst.term, burst.course, burst.now);
    update += ', #burst :one';
    const stale = staleBursts(burst.counter, burst.now);
    stale.forEach((name, index) => (names[`#stale${index}`] = name));
    if (stale.length > 0) update += ` REMOVE ${stale.map((_, index) => `#stale${index}`).join(', ')}`;
  }
  try {
    await asBookkeeping(() =>
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(table),
          Key: shardKey(shard),
          UpdateExpression: update,
          ConditionExpression: 'NOT contains(queued, :ticket)',
          ...(burst ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: { ':ticketSet': new Set([ticket]), ':ticket': ticket, ...(burst ? { ':one': 1 } : {}) },
        }),
      ),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** A ticket taken off its counter's set (whichever counter `shard` names): given up, superseded or passed. */
const removeTicket = (shard: number, ticket: number) => ({
  TableName: tableName(table),
  Key: shardKey(shard),
  UpdateExpression: 'DELETE queued :ticketSet',
  ExpressionAttributeValues: { ':ticketSet': new Set([ticket]) },
});

/**
 * Gives up a reserved ticket whose job will never be written (its submission was refused or
 * failed after reserving it), so that positions behind it do not count it.
 */
export async function abandonTicket(shard: number, ticket: number): Promise<void> {
  await asBookkeeping(() => dynamo().send(new UpdateCommand(removeTicket(shard, ticket))));
}

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

/** A superseded job's ticket, taken off the queue: positions no longer count it, workers never reach it. */
export const giveUpSuperseded = (shard: number, ticket: number): TransactItem => ({ Update: removeTicket(shard, ticket) });

/**
 * Takes the ticket off the queue as a worker claims (or passes) it, provided it is still queued:
 * two workers never take one ticket.
 */
export function claimTicket(shard: number, ticket: number): TransactItem {
  return {
    Update: {
      ...removeTicket(shard, ticket),
      ConditionExpression: 'contains(queued, :ticket)',
      ExpressionAttributeValues: { ':ticketSet': new Set([ticket]), ':ticket': ticket },
    },
  };
}

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
