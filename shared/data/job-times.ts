import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { asBookkeeping } from './request-writes.ts';
import { tableName, tables } from './tables.ts';

const table = tables.jobs;
const KEY = { job: 'times' };

/**
 * The item keeps this many recent jobs' times, each in a slot of its own chosen by the job's
 * ticket: a finished job writes its slot alone (no read, no condition), so workers ending jobs
 * together never contend, and the item stays a few hundred bytes.
 */
export const JOB_TIME_SLOTS = 16;

/** One finished job's grading: how long it took from its claim to its recorded end, and when it ended. */
export interface JobTime {
  /** Seconds from the claim to the recorded end. */
  readonly seconds: number;
  /** When the job ended (ms since the epoch). */
  readonly endedAt: number;
}

const slotName = (ticket: number) => `slot${((ticket % JOB_TIME_SLOTS) + JOB_TIME_SLOTS) % JOB_TIME_SLOTS}`;

const decode = (item: Item): readonly JobTime[] =>
  Object.entries(item)
    .filter(([name]) => /^slot\d+$/.test(name))
    .map(([, value]) => value as { seconds?: unknown; endedAt?: unknown })
    .filter((value) => typeof value.seconds === 'number' && typeof value.endedAt === 'number')
    .map((value) => ({ seconds: value.seconds as number, endedAt: value.endedAt as number }));

/** The recent jobs' times (an absent item: none yet). */
export const jobTimesRef = (): ItemRef<readonly JobTime[]> => ({ table, key: KEY, decode });

/** Records a finished job's time in its slot: one unconditional write, bookkeeping beside the job's end. */
export const recordJobTime = (ticket: number, time: JobTime): Promise<unknown> =>
  asBookkeeping(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: KEY,
        UpdateExpression: 'SET #slot = :time',
        ExpressionAttributeNames: { '#slot': slotName(ticket) },
        ExpressionAttributeValues: { ':time': { seconds: time.seconds, endedAt: time.endedAt } },
      }),
    ),
  );
