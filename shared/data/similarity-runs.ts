/**
 * Similarity runs live in the summaries table, beside the summaries jobs and gradebook exports, in
 * a partition of their own per course (`<term>/<course>#similarity`, which no course id can be):
 * `similarity-run#<id>` per run, and `similarity-pair#<id>#<rank>` per pair it kept, the rank written with four digits
 * so that a Query of the run's pairs reads them most similar first; and a small listing entry per
 * run, `similarity-listed#<gradeable>#<created at>#<id>`, written with it, so that a Query of a
 * gradeable's entries finds its runs by time without reading every run of the course (a run
 * carries its starter code, up to 200,000 characters). A run is written once when
 * asked for, then moved on by the worker's deliveries, every move conditioned on the state (and
 * lease) it moves from; a pair is written once (never over one already there, which may carry a
 * reviewer's decision).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import { getAttributes, type Item, type ItemRef } from './items.ts';
import { courseId } from './keys.ts';
import { claimUnderLease, endCourseJobUpdate, UNFINISHED, unfinishedCourseJobs, type UnfinishedCourseJob } from './course-jobs.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, transactWrite, type TransactItem } from './transactions.ts';

const table = tables.summaries;
const RUN_PREFIX = 'similarity-run#';
const PAIR_PREFIX = 'similarity-pair#';
const similarityPartition = (term: string, course: string) => `${courseId(term, course)}#similarity`;
const runKey = (term: string, course: string, runId: string) => ({
  courseId: similarityPartition(term, course),
  entry: RUN_PREFIX + runId,
});
const LISTED_PREFIX = 'similarity-listed#';
const listedEntry = (gradeableId: string, createdAt: string, runId: string) => `${LISTED_PREFIX}${gradeableId}#${createdAt}#${runId}`;
const pairEntry = (runId: string, rank: number) => `${PAIR_PREFIX}${runId}#${String(rank).padStart(4, '0')}`;

export type SimilarityRunState = 'queued' | 'running' | 'done' | 'failed';

/** A similarity run's kind in the `byUnfinished` index (course-jobs.ts). */
export const SIMILARITY_RUN_KIND = 'similarity-run';

/** A file every student was given: its matches count for no pair. */
export interface StarterFile {
  readonly path: string;
  readonly content: string;
}

export interface SimilarityRunRecord {
  readonly runId: string;
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly state: SimilarityRunState;
  readonly requestedBy: string;
  /** The language asked for; absent: each file's extension's. */
  readonly language?: string;
  /** The shortest match counted, in tokens; absent: the winnowing's own guarantee. */
  readonly minMatchTokens?: number;
  readonly starterCode?: readonly StarterFile[];
  /** How many files starterCode has, written with the run: a listing reads it without the files. */
  readonly starterFiles?: number;
  /** Gradeables of this or earlier terms whose submissions are compared with this one's (never with each other). */
  readonly compareWith?: readonly { readonly term: string; readonly course: string; readonly gradeableId: string }[];
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  /** While running: when another delivery of its message may take it over (epoch ms). */
  readonly leaseUntil?: number;
  /** Deliveries that claimed it; the last one's number is its lease. */
  readonly attempts: number;
  /** The submissions to compare (known once running). */
  readonly submissions?: number;
  /** Of those, how many are fingerprinted so far. */
  readonly fingerprinted?: number;
  /** Pairs kept (done only). */
  readonly pairs?: number;
  /** Versions whose fingerprints an earlier run had stored, read instead of parsing their files again (done only). */
  readonly reused?: number;
  /** Versions that could not be compared (done only), and the first of them with why. */
  readonly skipped?: number;
  readonly skippedVersions?: readonly SkippedVersion[];
  readonly message?: string;
}

/** A version a run could not compare, and why (its commit not recorded, its repository unreadable). */
export interface SkippedVersion {
  readonly owner: string;
  readonly version: number;
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly reason: string;
}

const optional = <Key extends string>(item: Item, key: Key) => (item[key] !== undefined ? { [key]: item[key] } : {});

const decodeRun = (item: Item): SimilarityRunRecord =>
  ({
    runId: (item.entry as string).slice(RUN_PREFIX.length),
    term: item.term as string,
    course: item.course as string,
    gradeableId: item.gradeableId as string,
    state: item.state as SimilarityRunState,
    requestedBy: item.requestedBy as string,
    createdAt: item.createdAt as string,
    attempts: (item.attempts as number | undefined) ?? 0,
    ...optional(item, 'language'),
    ...optional(item, 'minMatchTokens'),
    ...optional(item, 'starterCode'),
    ...optional(item, 'starterFiles'),
    ...optional(item, 'compareWith'),
    ...optional(item, 'reused'),
    ...optional(item, 'skipped'),
    ...optional(item, 'skippedVersions'),
    ...optional(item, 'startedAt'),
    ...optional(item, 'finishedAt'),
    ...optional(item, 'leaseUntil'),
    ...optional(item, 'submissions'),
    ...optional(item, 'fingerprinted'),
    ...optional(item, 'pairs'),
    ...optional(item, 'message'),
  }) as SimilarityRunRecord;

export const similarityRunRef = (term: string, course: string, runId: string): ItemRef<SimilarityRunRecord> => ({
  table,
  key: runKey(term, course, runId),
  decode: decodeRun,
});

/** Writes a new run, queued, with its listing entry; never over another of the same id. */
export async function createSimilarityRun(record: SimilarityRunRecord): Promise<void> {
  const { runId, ...rest } = record;
  const partition = similarityPartition(record.term, record.course);
  await transactWrite([
    {
      Put: {
        TableName: tableName(table),
        Item: {
          ...runKey(record.term, record.course, runId),
          ...rest,
          starterFiles: record.starterCode?.length ?? 0,
          ...(record.state === 'queued' || record.state === 'running' ? { [UNFINISHED]: SIMILARITY_RUN_KIND } : {}),
        },
        ConditionExpression: 'attribute_not_exists(entry)',
      },
    },
    {
      Put: {
        TableName: tableName(table),
        Item: { courseId: partition, entry: listedEntry(record.gradeableId, record.createdAt, runId), runId },
        ConditionExpression: 'attribute_not_exists(entry)',
      },
    },
  ]);
}

/**
 * What a run item's listing entry is, for a run written before runs were listed (the backfill puts
 * the ones missing); undefined for an item that is not a run. `listed`: the entry a listing item is.
 */
export function runListing(item: Item): { readonly run?: Item; readonly listed?: string } {
  const partition = String(item.courseId ?? '');
  const entry = String(item.entry ?? '');
  if (!partition.endsWith('#similarity')) return {};
  if (entry.startsWith(LISTED_PREFIX)) return { listed: entry };
  if (!entry.startsWith(RUN_PREFIX) || typeof item.gradeableId !== 'string' || typeof item.createdAt !== 'string') return {};
  const runId = entry.slice(RUN_PREFIX.length);
  return { run: { courseId: partition, entry: listedEntry(item.gradeableId, item.createdAt, runId), runId } };
}

/**
 * A page of a gradeable's runs' ids, newest first, after the listing position `after` (its
 * creation time and id); `last`: whether none follows.
 */
export async function similarityRunIdsPage(
  term: string,
  course: string,
  gradeableId: string,
  page: { readonly size: number; readonly after: { readonly createdAt: string; readonly runId: string } | undefined },
): Promise<{ runs: { runId: string; createdAt: string }[]; last: boolean }> {
  const partition = similarityPartition(term, course);
  const prefix = `${LISTED_PREFIX}${gradeableId}#`;
  const answer = await dynamo().send(
    new QueryCommand({
      TableName: tableName(table),
      KeyConditionExpression: 'courseId = :partition AND begins_with(entry, :prefix)',
      ExpressionAttributeValues: { ':partition': partition, ':prefix': prefix },
      ScanIndexForward: false,
      ...(page.after !== undefined
        ? { ExclusiveStartKey: { courseId: partition, entry: listedEntry(gradeableId, page.after.createdAt, page.after.runId) } }
        : {}),
      Limit: page.size,
    }),
  );
  const runs = (answer.Items ?? []).map((item) => {
    const [createdAt = '', runId = ''] = (item.entry as string).slice(prefix.length).split('#');
    return { runId, createdAt };
  });
  return { runs, last: answer.LastEvaluatedKey === undefined };
}

/** The attributes of a run a listing answers: all but its starter code's content and the skipped versions' list. */
const LISTED_ATTRIBUTES = [
  'term',
  'course',
  'gradeableId',
  'state',
  'requestedBy',
  'createdAt',
  'attempts',
  'language',
  'minMatchTokens',
  'compareWith',
  'reused',
  'skipped',
  'startedAt',
  'finishedAt',
  'leaseUntil',
  'submissions',
  'fingerprinted',
  'pairs',
  'message',
  'starterFiles',
] as const;

/**
 * The runs of `runIds` as a listing shows them, in that order (one request, whatever the page),
 * without their starter code's content (`starterFiles` counts it) and skipped versions' list.
 */
export async function listedSimilarityRuns(term: string, course: string, runIds: readonly string[]): Promise<SimilarityRunRecord[]> {
  const items = await getAttributes(
    table,
    runIds.map((runId) => runKey(term, course, runId)),
    LISTED_ATTRIBUTES,
  );
  return items.flatMap((item) => (item === undefined ? [] : [decodeRun(item)]));
}

/** Claims a run for one delivery of its message (claimUnderLease): its lease, or undefined. */
export const claimSimilarityRun = (
  term: string,
  course: string,
  runId: string,
  claim: { readonly now: Date; readonly leaseUntil: number },
): Promise<number | undefined> => claimUnderLease(runKey(term, course, runId), claim);

/** Records the run's progress while `lease` still holds it; false: it held no longer. */
export async function recordSimilarityProgress(
  term: string,
  course: string,
  runId: string,
  progress: { readonly submissions: number; readonly fingerprinted: number },
  lease: number,
): Promise<boolean> {
  return conditioned(
    new UpdateCommand({
      TableName: tableName(table),
      Key: runKey(term, course, runId),
      UpdateExpression: 'SET submissions = :submissions, fingerprinted = :fingerprinted',
      ConditionExpression: '#state = :running AND attempts = :lease',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ...progressValues(progress), ':running': 'running', ':lease': lease },
    }),
  );
}

const progressValues = (progress: { readonly submissions: number; readonly fingerprinted: number }) => ({
  ':submissions': progress.submissions,
  ':fingerprinted': progress.fingerprinted,
});

/** One pair a run kept, as stored. */
export interface StoredPairSide {
  /** The student or team. */
  readonly owner: string;
  readonly version: number;
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  /** Where its files are (shared/storage/keys.ts): a pair's passages are read from them; '' for a repository version. */
  readonly filesId: string;
  /** A repository version's commit: its passages are read from the texts kept beside its fingerprints. */
  readonly commit?: string;
}

export interface StoredFragmentSide {
  readonly path: string;
  readonly first_line: number;
  readonly last_line: number;
  readonly tokens: number;
}

export interface StoredPair {
  readonly runId: string;
  /** From 1, most similar first. */
  readonly rank: number;
  readonly left: StoredPairSide;
  readonly right: StoredPairSide;
  readonly similarity: number;
  readonly longestFragment: number;
  readonly totalOverlap: number;
  readonly fragments: readonly { readonly left: StoredFragmentSide; readonly right: StoredFragmentSide }[];
  readonly decision?: { readonly decision: 'dismissed' | 'confirmed'; readonly note: string; readonly by: string; readonly at: string };
  /** Bumped by every decision. */
  readonly revision: number;
}

const decodePair = (item: Item): StoredPair =>
  ({
    runId: item.runId as string,
    rank: item.rank as number,
    left: item.left as StoredPairSide,
    right: item.right as StoredPairSide,
    similarity: item.similarity as number,
    longestFragment: item.longestFragment as number,
    totalOverlap: item.totalOverlap as number,
    fragments: (item.fragments as StoredPair['fragments'] | undefined) ?? [],
    revision: (item.revision as number | undefined) ?? 0,
    ...optional(item, 'decision'),
  }) as StoredPair;

/**
 * Writes a run's pairs while `lease` holds it, each only where none is yet: a delivery that took
 * the run over after another wrote some of them writes the same pairs (a run's input does not
 * change), and never over a decision recorded meanwhile.
 */
export async function writeSimilarityPairs(term: string, course: string, pairs: readonly StoredPair[]): Promise<void> {
  await Promise.all(
    pairs.map((pair) =>
      conditioned(
        new PutCommand({
          TableName: tableName(table),
          Item: { courseId: similarityPartition(term, course), entry: pairEntry(pair.runId, pair.rank), ...pair },
          ConditionExpression: 'attribute_not_exists(entry)',
        }),
      ),
    ),
  );
}

export const similarityPairRef = (term: string, course: string, runId: string, rank: number): ItemRef<StoredPair> => ({
  table,
  key: { courseId: similarityPartition(term, course), entry: pairEntry(runId, rank) },
  decode: decodePair,
});

/**
 * The transaction item recording a decision on a pair, conditioned on the revision it was read
 * at: a decision made meanwhile by another reviewer is never silently undone.
 */
export function decideSimilarityPair(
  term: string,
  course: string,
  pair: Pick<StoredPair, 'runId' | 'rank' | 'revision'>,
  decision: NonNullable<StoredPair['decision']>,
): TransactItem {
  return {
    Update: {
      TableName: tableName(table),
      Key: { courseId: similarityPartition(term, course), entry: pairEntry(pair.runId, pair.rank) },
      UpdateExpression: 'SET decision = :decision, revision = :next',
      ConditionExpression: 'revision = :read',
      ExpressionAttributeValues: { ':decision': decision, ':next': pair.revision + 1, ':read': pair.revision },
    },
  };
}

/** A page of a run's pairs, most similar first, after the rank `after`; `last`: whether none follows. */
export async function similarityPairsPage(
  term: string,
  course: string,
  runId: string,
  page: { readonly size: number; readonly after: number | undefined },
): Promise<{ pairs: StoredPair[]; last: boolean }> {
  const answer = await dynamo().send(
    new QueryCommand({
      TableName: tableName(table),
      KeyConditionExpression: 'courseId = :partition AND begins_with(entry, :prefix)',
      ExpressionAttributeValues: { ':partition': similarityPartition(term, course), ':prefix': `${PAIR_PREFIX}${runId}#` },
      ...(page.after !== undefined
        ? { ExclusiveStartKey: { courseId: similarityPartition(term, course), entry: pairEntry(runId, page.after) } }
        : {}),
      Limit: page.size,
    }),
  );
  return { pairs: (answer.Items ?? []).map(decodePair), last: answer.LastEvaluatedKey === undefined };
}

export type SimilarityRunOutcome =
  | {
      readonly state: 'done';
      readonly at: string;
      readonly pairs: number;
      readonly submissions: number;
      readonly reused: number;
      readonly skipped: number;
      readonly skippedVersions: readonly SkippedVersion[];
    }
  | { readonly state: 'failed'; readonly at: string; readonly message: string };

/**
 * The transaction item ending a run: done with its pairs' count, or failed with why. With `lease`,
 * only while that claim still holds it (a delivery whose lease was taken over records nothing);
 * without, only while it is still queued (it could not be sent to the queue).
 */
export function finishSimilarityRunItem(
  term: string,
  course: string,
  runId: string,
  outcome: SimilarityRunOutcome,
  lease: number | undefined,
): TransactItem {
  const end =
    outcome.state === 'done'
      ? {
          set: 'pairs = :pairs, submissions = :submissions, fingerprinted = :submissions, reused = :reused, skipped = :skipped, skippedVersions = :skippedVersions',
          values: {
            ':pairs': outcome.pairs,
            ':submissions': outcome.submissions,
            ':reused': outcome.reused,
            ':skipped': outcome.skipped,
            ':skippedVersions': outcome.skippedVersions,
          },
        }
      : { set: 'message = :message', values: { ':message': outcome.message } };
  return { Update: endCourseJobUpdate(runKey(term, course, runId), { state: outcome.state, at: outcome.at, ...end }, lease) };
}

/**
 * Ends a run with the items recorded with its end (the webhook event's outbox entry): false when
 * the run's condition failed (it held no longer), and nothing of them is written.
 */
export async function finishSimilarityRun(
  term: string,
  course: string,
  runId: string,
  outcome: SimilarityRunOutcome,
  lease: number | undefined,
  alongside: readonly TransactItem[] = [],
): Promise<boolean> {
  try {
    await transactWrite([finishSimilarityRunItem(term, course, runId, outcome, lease), ...alongside]);
    return true;
  } catch (error) {
    if (failedConditions(error).includes(0)) return false;
    throw error;
  }
}

/** Sends a conditioned write; false when its condition failed. */
async function conditioned(command: PutCommand | UpdateCommand): Promise<boolean> {
  try {
    await dynamo().send(command as UpdateCommand);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** A similarity run not finished, as the `byUnfinished` index holds it, with its id. */
export type UnfinishedSimilarityRun = UnfinishedCourseJob & { readonly runId: string };

/** Every similarity run not finished, of every course (course-jobs.ts: the index, not a Scan). */
export const unfinishedSimilarityRuns = async (): Promise<UnfinishedSimilarityRun[]> =>
  (await unfinishedCourseJobs(SIMILARITY_RUN_KIND)).map((job) => ({ ...job, runId: job.key.entry.slice(RUN_PREFIX.length) }));
