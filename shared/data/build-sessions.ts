import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { tableName, tables } from './tables.ts';

const table = tables.jobs;
/** Beside the queue's counters in the jobs table: the grading workers' CodeBuild sessions running now. */
const KEY = { job: 'builds' };

/**
 * The build sessions running now (each a worker feeding one build at a time), by id, each with
 * the time (epoch ms) its worker's own time runs out: a worker that dies holds its place no longer.
 * `version` changes with every write, so a session is added only to what its worker read.
 */
export interface BuildSessions {
  readonly sessions: Readonly<Record<string, number>>;
  readonly version: number;
  /** A job's time in a build as measured lately (seconds), if any was. */
  readonly jobSeconds?: number;
}

export const buildSessionsRef = (): ItemRef<BuildSessions> => ({ table, key: KEY, decode: decodeSessions });

function decodeSessions(item: Item): BuildSessions {
  return {
    sessions: (item.sessions as Record<string, number> | undefined) ?? {},
    version: (item.version as number | undefined) ?? 0,
    ...(typeof item.jobSeconds === 'number' ? { jobSeconds: item.jobSeconds } : {}),
  };
}

/**
 * Adds a session to the ones read (`live`: those read whose time has not run out), provided no
 * other worker wrote since: false when one did (read again and decide again).
 */
export async function openBuildSession(
  read: BuildSessions,
  live: Readonly<Record<string, number>>,
  id: string,
  until: number,
): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: KEY,
        UpdateExpression: 'SET sessions = :sessions, version = :next',
        ConditionExpression: read.version === 0 ? 'attribute_not_exists(version)' : 'version = :version',
        ExpressionAttributeValues: {
          ':sessions': { ...live, [id]: until },
          ':next': read.version + 1,
          ...(read.version === 0 ? {} : { ':version': read.version }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Removes a session (its build is over), recording the job time it measured, if any. */
export async function closeBuildSession(id: string, jobSeconds?: number): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(table),
      Key: KEY,
      UpdateExpression: `REMOVE sessions.#id SET version = version + :one${jobSeconds === undefined ? '' : ', jobSeconds = :seconds'}`,
      ConditionExpression: 'attribute_exists(version)',
      ExpressionAttributeNames: { '#id': id },
      ExpressionAttributeValues: { ':one': 1, ...(jobSeconds === undefined ? {} : { ':seconds': jobSeconds }) },
    }),
  );
}

/** Records a job time measured while a session runs (the next decisions use it). */
export async function recordJobSeconds(jobSeconds: number): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(table),
      Key: KEY,
      UpdateExpression: 'SET jobSeconds = :seconds',
      ExpressionAttributeValues: { ':seconds': jobSeconds },
    }),
  );
}
