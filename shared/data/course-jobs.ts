/**
 * Course jobs: entries of the summaries table that a queue's deliveries run (summaries jobs,
 * gradebook exports), each in its course's partition of its kind. What they share: the claim of
 * one delivery under a lease, and the `byUnfinished` index, which holds a job from its creation
 * (`unfinished` names its kind) until the write that ends it removes the attribute, so that the
 * jobs a lost message or a dead worker left are found without reading anything else of the table.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';

const table = tables.summaries;
const INDEX = 'byUnfinished';

/** The attribute `byUnfinished` is keyed on: the job's kind while it is unfinished, absent once it ends. */
export const UNFINISHED = 'unfinished';

/** A course job as the index holds it: its key, course, state and tries. */
export interface UnfinishedCourseJob {
  readonly key: { readonly courseId: string; readonly entry: string };
  readonly term: string;
  readonly course: string;
  readonly state: 'queued' | 'running';
  readonly createdAt: string;
  readonly leaseUntil?: number;
  /** Deliveries that claimed it. */
  readonly attempts: number;
  /** Messages the sweep sent again, the last one at `resentAt` (epoch ms). */
  readonly resends: number;
  readonly resentAt?: number;
}

const decodeUnfinished = (item: Item): UnfinishedCourseJob => ({
  key: { courseId: item.courseId as string, entry: item.entry as string },
  term: item.term as string,
  course: item.course as string,
  state: item.state as UnfinishedCourseJob['state'],
  createdAt: item.createdAt as string,
  ...(item.leaseUntil !== undefined ? { leaseUntil: item.leaseUntil as number } : {}),
  attempts: (item.attempts as number | undefined) ?? 0,
  resends: (item.resends as number | undefined) ?? 0,
  ...(item.resentAt !== undefined ? { resentAt: item.resentAt as number } : {}),
});

/** Every unfinished course job of a kind, of every course, oldest first: a Query of the index, never a Scan. */
export const unfinishedCourseJobs = async (kind: string): Promise<UnfinishedCourseJob[]> =>
  (
    await queryAll({
      TableName: tableName(table),
      IndexName: INDEX,
      KeyConditionExpression: '#unfinished = :kind',
      ExpressionAttributeNames: { '#unfinished': UNFINISHED },
      ExpressionAttributeValues: { ':kind': kind },
    })
  )
    // The index is read eventually: a job it still shows as unfinished may have ended meanwhile.
    .filter((item) => item.state === 'queued' || item.state === 'running')
    .map(decodeUnfinished);

/** The condition that the job is still as the sweep read it: same state, claims and resends. */
const asRead = (job: UnfinishedCourseJob) => ({
  ConditionExpression:
    '#state = :state AND attempts = :attempts AND ' + (job.resends === 0 ? 'attribute_not_exists(resends)' : 'resends = :resends'),
  ExpressionAttributeNames: { '#state': 'state' },
  ExpressionAttributeValues: {
    ':state': job.state,
    ':attempts': job.attempts,
    ...(job.resends === 0 ? {} : { ':resends': job.resends }),
  },
});

/** Runs a write conditioned on what was read; false when the job moved on meanwhile. */
async function whileAsRead(write: UpdateCommand): Promise<boolean> {
  try {
    await dynamo().send(write);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** What ends a course job: its state and time, and the outcome's own attributes (`set`: their `name = :value` list). */
export interface CourseJobEnd {
  readonly state: string;
  readonly at: string;
  readonly set: string;
  readonly names?: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/**
 * The write that ends a course job, taking it out of the `byUnfinished` index: with `lease`, only
 * while that claim still holds it (a delivery whose lease was taken over records nothing); without,
 * only while it is still queued (it could not be sent to the queue).
 */
export function endCourseJobUpdate(key: Record<string, string>, end: CourseJobEnd, lease: number | undefined) {
  return {
    TableName: tableName(table),
    Key: key,
    UpdateExpression: `SET #state = :state, finishedAt = :at, ${end.set} REMOVE leaseUntil, ${UNFINISHED}`,
    ConditionExpression: lease === undefined ? '#state = :queued' : '#state = :running AND attempts = :lease',
    ExpressionAttributeNames: { '#state': 'state', ...end.names },
    ExpressionAttributeValues: {
      ':state': end.state,
      ':at': end.at,
      ...(lease === undefined ? { ':queued': 'queued' } : { ':running': 'running', ':lease': lease }),
      ...end.values,
    },
  };
}

/** Ends a course job (endCourseJobUpdate); false: the claim or the queued state held no longer, and nothing was written. */
export const endCourseJob = (key: Record<string, string>, end: CourseJobEnd, lease: number | undefined): Promise<boolean> =>
  whileAsRead(new UpdateCommand(endCourseJobUpdate(key, end, lease)));

/** Counts a resend of the job's message, before it is sent, while the job is as read. False: it moved on (nothing to send). */
export async function recordResend(job: UnfinishedCourseJob, at: Date): Promise<boolean> {
  const condition = asRead(job);
  return whileAsRead(
    new UpdateCommand({
      TableName: tableName(table),
      Key: job.key,
      UpdateExpression: 'SET resends = :next, resentAt = :at',
      ...condition,
      ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':next': job.resends + 1, ':at': at.getTime() },
    }),
  );
}

/** Ends the job as failed with why, while it is as read (a delivery that claimed it meanwhile keeps it). */
export async function failUnfinished(
  job: UnfinishedCourseJob,
  outcome: { readonly at: string; readonly message: string },
): Promise<boolean> {
  const condition = asRead(job);
  return whileAsRead(
    new UpdateCommand({
      TableName: tableName(table),
      Key: job.key,
      UpdateExpression: `SET #state = :failed, finishedAt = :at, message = :message REMOVE leaseUntil, ${UNFINISHED}`,
      ...condition,
      ExpressionAttributeValues: {
        ...condition.ExpressionAttributeValues,
        ':failed': 'failed',
        ':at': outcome.at,
        ':message': outcome.message,
      },
    }),
  );
}

/**
 * Claims a course job for one delivery of its message: queued, or running under a lease that ran
 * out (the delivery holding it ended without finishing). The claim's number (its `attempts` after
 * it), which the job's end is conditioned on; undefined: finished, or another delivery holds it.
 */
export async function claimUnderLease(
  key: Record<string, string>,
  claim: { readonly now: Date; readonly leaseUntil: number },
): Promise<number | undefined> {
  try {
    const answer = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: key,
        UpdateExpression: 'SET #state = :running, leaseUntil = :lease, startedAt = if_not_exists(startedAt, :now) ADD attempts :one',
        ConditionExpression: '#state = :queued OR (#state = :running AND leaseUntil < :nowMs)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':running': 'running',
          ':queued': 'queued',
          ':lease': claim.leaseUntil,
          ':now': claim.now.toISOString(),
          ':nowMs': claim.now.getTime(),
          ':one': 1,
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return answer.Attributes?.attempts as number;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}
