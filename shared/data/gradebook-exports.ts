/**
 * Gradebook exports live in the summaries table, beside the summaries jobs, in a partition of
 * their own per course (`<term>/<course>#exports`, which no course id can be): `export#<id>` per
 * export. Each is written once when asked for, then moved on by the worker's deliveries, every
 * move conditioned on the state it moves from, so a late or repeated delivery never undoes one.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { courseId } from './keys.ts';
import { claimUnderLease, endCourseJob, UNFINISHED, unfinishedCourseJobs, type UnfinishedCourseJob } from './course-jobs.ts';
import { tableName, tables } from './tables.ts';

const table = tables.summaries;
export const GRADEBOOK_EXPORT_PREFIX = 'export#';
/** What ends the partition of a course's gradebook exports. */
export const GRADEBOOK_EXPORTS_PARTITION_SUFFIX = '#exports';
const exportsPartition = (term: string, course: string) => `${courseId(term, course)}${GRADEBOOK_EXPORTS_PARTITION_SUFFIX}`;
const exportKey = (term: string, course: string, exportId: string) => ({
  courseId: exportsPartition(term, course),
  entry: GRADEBOOK_EXPORT_PREFIX + exportId,
});

export type GradebookExportState = 'queued' | 'running' | 'done' | 'failed';

/** A gradebook export's kind in the `byUnfinished` index (course-jobs.ts). */
export const GRADEBOOK_EXPORT_KIND = 'gradebook-export';

export interface GradebookExportRecord {
  readonly exportId: string;
  readonly term: string;
  readonly course: string;
  readonly format: 'csv';
  readonly state: GradebookExportState;
  readonly requestedBy: string;
  /** The sections the requester sees (a limited access grader's); absent: every section. */
  readonly sections?: readonly string[];
  /** The gradeables asked for, in the order asked; absent: every gradeable released to staff. */
  readonly gradeableIds?: readonly string[];
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  /** While running: when another delivery of its message may take it over (epoch ms). */
  readonly leaseUntil?: number;
  /** Deliveries that claimed it; the last one's number is its lease. */
  readonly attempts: number;
  readonly students?: number;
  readonly bytes?: number;
  readonly message?: string;
}

const decodeExport = (item: Item): GradebookExportRecord => ({
  exportId: (item.entry as string).slice(GRADEBOOK_EXPORT_PREFIX.length),
  term: item.term as string,
  course: item.course as string,
  format: 'csv',
  state: item.state as GradebookExportState,
  requestedBy: item.requestedBy as string,
  ...(item.sections !== undefined ? { sections: item.sections as string[] } : {}),
  ...(item.gradeableIds !== undefined ? { gradeableIds: item.gradeableIds as string[] } : {}),
  createdAt: item.createdAt as string,
  ...(item.startedAt !== undefined ? { startedAt: item.startedAt as string } : {}),
  ...(item.finishedAt !== undefined ? { finishedAt: item.finishedAt as string } : {}),
  ...(item.leaseUntil !== undefined ? { leaseUntil: item.leaseUntil as number } : {}),
  attempts: (item.attempts as number | undefined) ?? 0,
  ...(item.students !== undefined ? { students: item.students as number } : {}),
  ...(item.bytes !== undefined ? { bytes: item.bytes as number } : {}),
  ...(item.message !== undefined ? { message: item.message as string } : {}),
});

export const gradebookExportRef = (term: string, course: string, exportId: string): ItemRef<GradebookExportRecord> => ({
  table,
  key: exportKey(term, course, exportId),
  decode: decodeExport,
});

/** Writes a new export, queued; never over another of the same id. */
export async function createGradebookExport(record: GradebookExportRecord): Promise<void> {
  const { exportId, ...rest } = record;
  await dynamo().send(
    new PutCommand({
      TableName: tableName(table),
      Item: {
        ...exportKey(record.term, record.course, exportId),
        ...rest,
        ...(record.state === 'queued' || record.state === 'running' ? { [UNFINISHED]: GRADEBOOK_EXPORT_KIND } : {}),
      },
      ConditionExpression: 'attribute_not_exists(entry)',
    }),
  );
}

/**
 * Claims an export for one delivery of its message: queued, or running under a lease that ran out.
 * The claim's number (its `attempts` after it) is the lease the end is conditioned on; undefined:
 * finished, or another delivery holds it.
 */
export const claimGradebookExport = (
  term: string,
  course: string,
  exportId: string,
  claim: { readonly now: Date; readonly leaseUntil: number },
): Promise<number | undefined> => claimUnderLease(exportKey(term, course, exportId), claim);

export type GradebookExportOutcome =
  | { readonly state: 'done'; readonly at: string; readonly students: number; readonly bytes: number }
  | { readonly state: 'failed'; readonly at: string; readonly message: string };

/**
 * Ends an export: done with its size, or failed with why. With `lease`, only while that claim
 * still holds it (a delivery whose lease was taken over records nothing); without, only while it
 * is still queued (it could not be sent to the queue). False: it held no longer.
 */
export async function finishGradebookExport(
  term: string,
  course: string,
  exportId: string,
  outcome: GradebookExportOutcome,
  lease: number | undefined,
): Promise<boolean> {
  const end =
    outcome.state === 'done'
      ? { set: 'students = :students, bytes = :bytes', values: { ':students': outcome.students, ':bytes': outcome.bytes } }
      : { set: 'message = :message', values: { ':message': outcome.message } };
  return endCourseJob(exportKey(term, course, exportId), { state: outcome.state, at: outcome.at, ...end }, lease);
}

/** A gradebook export not finished, as the `byUnfinished` index holds it, with its id. */
export type UnfinishedGradebookExport = UnfinishedCourseJob & { readonly exportId: string };

/** Every gradebook export not finished, of every course (course-jobs.ts: the index, not a Scan). */
export const unfinishedGradebookExports = async (): Promise<UnfinishedGradebookExport[]> =>
  (await unfinishedCourseJobs(GRADEBOOK_EXPORT_KIND)).map((job) => ({
    ...job,
    exportId: job.key.entry.slice(GRADEBOOK_EXPORT_PREFIX.length),
  }));
