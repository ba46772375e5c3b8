import { courseId } from './keys.ts';
import { batchWrite } from './batch-write.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { dynamo } from './client.ts';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { failedConditions, transactWrite } from './transactions.ts';
import { tableName, tables } from './tables.ts';
import { claimUnderLease, endCourseJob, UNFINISHED, unfinishedCourseJobs, type UnfinishedCourseJob } from './course-jobs.ts';

const table = tables.summaries;
const entry = (generation: string, userId: string) => `${generation}#${userId}`;

export type SummaryDocument = Record<string, unknown> & { user_id: string };

const decode = (item: Item): SummaryDocument => JSON.parse(item.document as string) as SummaryDocument;

/** A Query of one generation's entries, in user id order. */
const generationQuery = (term: string, course: string, generation: string) => ({
  TableName: tableName(table),
  KeyConditionExpression: 'courseId = :course AND begins_with(entry, :prefix)',
  ExpressionAttributeValues: { ':course': courseId(term, course), ':prefix': `${generation}#` },
});

export const summaryRef = (term: string, course: string, generation: string, userId: string): ItemRef<SummaryDocument> => ({
  table,
  key: { courseId: courseId(term, course), entry: entry(generation, userId) },
  decode,
});

/** A user's summary of the latest generation written (`latest#<userId>`), with that generation. */
export interface LatestSummary {
  readonly generation: string;
  readonly document: SummaryDocument;
}

/**
 * Each user's summary is also kept under a key of the user alone, copied there once its generation
 * is current (copyToLatest), so that reading one's summary needs no generation first (one round
 * trip, read with the token check); it serves only while its generation is the course's current one.
 */
export const latestSummaryRef = (term: string, course: string, userId: string): ItemRef<LatestSummary> => ({
  table,
  key: { courseId: courseId(term, course), entry: `latest#${userId}` },
  decode: (item) => ({ generation: item.generation as string, document: decode(item) }),
});

/** Writes one generation's summaries in batches (as JSON text, so their key order survives). */
export async function writeSummaries(term: string, course: string, generation: string, documents: readonly SummaryDocument[]) {
  await batchWrite(
    documents.map((document) => ({
      tableName: tableName(table),
      request: {
        PutRequest: {
          Item: { courseId: courseId(term, course), entry: entry(generation, document.user_id), document: JSON.stringify(document) },
        },
      },
    })),
  );
}

/** Copies a (current) generation's summaries to each user's latest entry, a page at a time. */
export async function copyToLatest(term: string, course: string, generation: string): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const answer = await dynamo().send(
      new QueryCommand({
        ...generationQuery(term, course, generation),
        ExclusiveStartKey: startKey,
      }),
    );
    await batchWrite(
      (answer.Items ?? []).map((item) => ({
        tableName: tableName(table),
        request: {
          PutRequest: {
            Item: {
              courseId: item.courseId,
              entry: `latest#${(item.entry as string).slice(generation.length + 1)}`,
              document: item.document,
              generation,
            },
          },
        },
      })),
    );
    startKey = answer.LastEvaluatedKey;
  } while (startKey);
}

export async function summariesOf(term: string, course: string, generation: string): Promise<SummaryDocument[]> {
  const items = await queryAll({
    ...generationQuery(term, course, generation),
  });
  return items.map(decode);
}

/**
 * One page of a generation's summaries in user id order: at most `size` after the user `after`,
 * ending early once their JSON reaches `maxBytes` (at least one). Reads about the page and one item
 * more (to tell whether another page follows), never the whole generation.
 */
export async function summariesPage(
  term: string,
  course: string,
  generation: string,
  page: { readonly after: string | undefined; readonly size: number; readonly maxBytes: number },
): Promise<{ summaries: SummaryDocument[]; more: boolean }> {
  const documents: string[] = [];
  let startKey: Record<string, unknown> | undefined =
    page.after === undefined ? undefined : { courseId: courseId(term, course), entry: entry(generation, page.after) };
  let bytes = 2;
  let more = false;
  do {
    const answer = await dynamo().send(
      new QueryCommand({
        ...generationQuery(term, course, generation),
        ExclusiveStartKey: startKey,
        Limit: page.size + 1 - documents.length,
      }),
    );
    for (const item of answer.Items ?? []) {
      const document = item.document as string;
      bytes += Buffer.byteLength(document) + 1;
      if (documents.length === page.size || (documents.length > 0 && bytes > page.maxBytes)) {
        more = true;
        break;
      }
      documents.push(document);
    }
    startKey = answer.LastEvaluatedKey;
  } while (!more && startKey);
  return { summaries: documents.map((document) => JSON.parse(document) as SummaryDocument), more };
}

/** Removes a generation nobody reads any more. */
export async function deleteGeneration(term: string, course: string, generation: string): Promise<void> {
  const keys = (await queryAll({
    ...generationQuery(term, course, generation),
    ProjectionExpression: 'courseId, entry',
  })) as Record<string, string>[];
  await batchWrite(keys.map((Key) => ({ tableName: tableName(table), request: { DeleteRequest: { Key } } })));
}

/**
 * Summaries jobs live in the summaries table, in a partition of their own per course
 * (`<term>/<course>#jobs`, which no course id can be, so that no query of the course's summaries
 * meets them): `job#<jobId>` per job, and `slot`, naming the job under way, so that a second
 * request while one runs finds it instead of starting another.
 */
export const SUMMARIES_JOB_PREFIX = 'job#';
const SLOT = 'slot';
/** What ends the partition of a course's summaries jobs. */
export const SUMMARIES_JOBS_PARTITION_SUFFIX = '#jobs';
const jobsPartition = (term: string, course: string) => `${courseId(term, course)}${SUMMARIES_JOBS_PARTITION_SUFFIX}`;

export type SummariesJobState = 'queued' | 'running' | 'done' | 'failed';

/** A summaries job's kind in the `byUnfinished` index (course-jobs.ts). */
export const SUMMARIES_JOB_KIND = 'summaries-job';

const finished = (state: SummariesJobState) => state === 'done' || state === 'failed';

export interface SummariesJobRecord {
  readonly jobId: string;
  readonly term: string;
  readonly course: string;
  readonly state: SummariesJobState;
  /** Members whose summaries are written, of `total` (the enrollments read when the run started; 0 until then). */
  readonly done: number;
  readonly total: number;
  readonly requestedBy: string;
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  /** While running: when another delivery of its message may take it over (epoch ms). */
  readonly leaseUntil?: number;
  readonly attempts: number;
  readonly summaries?: number;
  readonly generatedAt?: string;
  readonly generation?: string;
  readonly message?: string;
}

const decodeJob = (item: Item): SummariesJobRecord => ({
  jobId: (item.entry as string).slice(SUMMARIES_JOB_PREFIX.length),
  term: item.term as string,
  course: item.course as string,
  state: item.state as SummariesJobState,
  done: (item.done as number | undefined) ?? 0,
  total: (item.total as number | undefined) ?? 0,
  requestedBy: item.requestedBy as string,
  createdAt: item.createdAt as string,
  ...(item.startedAt !== undefined ? { startedAt: item.startedAt as string } : {}),
  ...(item.finishedAt !== undefined ? { finishedAt: item.finishedAt as string } : {}),
  ...(item.leaseUntil !== undefined ? { leaseUntil: item.leaseUntil as number } : {}),
  attempts: (item.attempts as number | undefined) ?? 0,
  ...(item.summaries !== undefined ? { summaries: item.summaries as number } : {}),
  ...(item.generatedAt !== undefined ? { generatedAt: item.generatedAt as string } : {}),
  ...(item.generation !== undefined ? { generation: item.generation as string } : {}),
  ...(item.message !== undefined ? { message: item.message as string } : {}),
});

const jobKey = (term: string, course: string, jobId: string) => ({
  courseId: jobsPartition(term, course),
  entry: SUMMARIES_JOB_PREFIX + jobId,
});
const slotKey = (term: string, course: string) => ({ courseId: jobsPartition(term, course), entry: SLOT });

export const summariesJobRef = (term: string, course: string, jobId: string): ItemRef<SummariesJobRecord> => ({
  table,
  key: jobKey(term, course, jobId),
  decode: decodeJob,
});

/** The course's slot: the job under way, held until `until` (epoch ms) at the latest. */
export interface SummariesJobSlot {
  readonly jobId: string;
  readonly until: number;
}

export const summariesJobSlotRef = (term: string, course: string): ItemRef<SummariesJobSlot> => ({
  table,
  key: slotKey(term, course),
  decode: (item) => ({ jobId: item.jobId as string, until: item.until as number }),
});

/**
 * Writes a new job and takes the course's slot for it, both or neither. The slot is taken when it
 * is free, expired, or held by `replaces` (a job seen finished). False: another job holds it.
 */
export async function createSummariesJob(
  record: SummariesJobRecord,
  slot: { readonly until: number; readonly now: number; readonly replaces?: string },
): Promise<boolean> {
  const { jobId, ...rest } = record;
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName(table),
          Item: {
            ...jobKey(record.term, record.course, jobId),
            ...rest,
            ...(finished(record.state) ? {} : { [UNFINISHED]: SUMMARIES_JOB_KIND }),
          },
          ConditionExpression: 'attribute_not_exists(entry)',
        },
      },
      {
        Put: {
          TableName: tableName(table),
          Item: { ...slotKey(record.term, record.course), jobId, until: slot.until },
          ConditionExpression: 'attribute_not_exists(entry) OR #until < :now OR jobId = :replaces',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':now': slot.now, ':replaces': slot.replaces ?? '-' },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (failedConditions(error).includes(1)) return false;
    throw error;
  }
}

/**
 * Claims a job for one delivery of its message: queued, or running under a lease that ran out (the
 * delivery holding it ended without finishing). The claim's number, which its end is conditioned
 * on; undefined: finished, or another delivery holds it.
 */
export async function claimSummariesJob(
  term: string,
  course: string,
  jobId: string,
  claim: { readonly now: Date; readonly leaseUntil: number },
): Promise<number | undefined> {
  return claimUnderLease(jobKey(term, course, jobId), claim);
}

/** Records how many members' summaries are written so far. */
export async function setSummariesJobProgress(term: string, course: string, jobId: string, progress: { done: number; total: number }) {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(table),
      Key: jobKey(term, course, jobId),
      UpdateExpression: 'SET done = :done, #total = :total',
      ConditionExpression: 'attribute_exists(entry)',
      ExpressionAttributeNames: { '#total': 'total' },
      ExpressionAttributeValues: { ':done': progress.done, ':total': progress.total },
    }),
  );
}

/**
 * Ends a job: done with its generation, or failed with a message. With `lease`, only while that
 * claim still holds it (a delivery whose lease was taken over records nothing, so a job never ends
 * twice); without, only while it is still queued (it could not be sent to the queue). False: it
 * held no longer.
 */
export async function finishSummariesJob(
  term: string,
  course: string,
  jobId: string,
  outcome:
    | { readonly state: 'done'; readonly at: string; readonly summaries: number; readonly generatedAt: string; readonly generation: string }
    | { readonly state: 'failed'; readonly at: string; readonly message: string },
  lease: number | undefined,
): Promise<boolean> {
  const end =
    outcome.state === 'done'
      ? {
          set: 'done = #total, summaries = :summaries, generatedAt = :generatedAt, generation = :generation',
          names: { '#total': 'total' },
          values: { ':summaries': outcome.summaries, ':generatedAt': outcome.generatedAt, ':generation': outcome.generation },
        }
      : { set: 'message = :message', values: { ':message': outcome.message } };
  return endCourseJob(jobKey(term, course, jobId), { state: outcome.state, at: outcome.at, ...end }, lease);
}

/** Frees the course's slot, if this job still holds it. */
export async function releaseSummariesJobSlot(term: string, course: string, jobId: string): Promise<void> {
  try {
    await dynamo().send(
      new DeleteCommand({
        TableName: tableName(table),
        Key: slotKey(term, course),
        ConditionExpression: 'jobId = :jobId',
        ExpressionAttributeValues: { ':jobId': jobId },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** A stored summary read before its generation is known: its generation, user and JSON text. */
export interface SummaryEntry {
  readonly generation: string;
  readonly userId: string;
  readonly document: string;
}

/**
 * The summaries of every generation in key order, after the one `after` names (none: from the
 * course's first): at most `size + 1`, ending early at the one whose JSON passes `maxBytes`, so
 * that a page of any one generation and whether another follows can be cut from them. For reading
 * a page before the course names its current generation (shared/summaries/list.ts).
 */
export async function summaryEntries(
  term: string,
  course: string,
  page: { readonly after: { generation: string; userId: string } | undefined; readonly size: number; readonly maxBytes: number },
): Promise<{ entries: SummaryEntry[]; exhausted: boolean }> {
  const entries: SummaryEntry[] = [];
  let startKey: Record<string, unknown> | undefined =
    page.after === undefined ? undefined : { courseId: courseId(term, course), entry: entry(page.after.generation, page.after.userId) };
  let bytes = 2;
  do {
    const answer = await dynamo().send(
      new QueryCommand({
        TableName: tableName(table),
        KeyConditionExpression: 'courseId = :course',
        ExpressionAttributeValues: { ':course': courseId(term, course) },
        ExclusiveStartKey: startKey,
        Limit: page.size + 1 - entries.length,
      }),
    );
    for (const item of answer.Items ?? []) {
      const key = item.entry as string;
      const split = key.indexOf('#');
      const document = item.document as string;
      entries.push({ generation: key.slice(0, split), userId: key.slice(split + 1), document });
      bytes += Buffer.byteLength(document) + 1;
      if (entries.length > page.size || (entries.length > 1 && bytes > page.maxBytes)) return { entries, exhausted: false };
    }
    startKey = answer.LastEvaluatedKey;
  } while (startKey);
  return { entries, exhausted: true };
}

/** A summaries job not finished, as the `byUnfinished` index holds it, with its id. */
export type UnfinishedSummariesJob = UnfinishedCourseJob & { readonly jobId: string };

/** Every summaries job not finished, of every course (course-jobs.ts: the index, not a Scan). */
export const unfinishedSummariesJobs = async (): Promise<UnfinishedSummariesJob[]> =>
  (await unfinishedCourseJobs(SUMMARIES_JOB_KIND)).map((job) => ({ ...job, jobId: job.key.entry.slice(SUMMARIES_JOB_PREFIX.length) }));
