/**
 * Gradebook exports: `POST …/gradebook/exports` records an export and queues it on the summaries
 * queue (the summaries worker writes it, never the request); `GET …/gradebook/exports/{export_id}`
 * answers its state and, once done, a presigned link to its CSV in the submissions bucket. An
 * export covers what its requester sees: a limited access grader's sections only. Nobody but its
 * requester reads it.
 */
import { randomBytes } from 'node:crypto';
import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { courseRef } from '#shared/data/courses.ts';
import {
  claimGradebookExport,
  createGradebookExport,
  finishGradebookExport,
  gradebookExportRef,
  type GradebookExportOutcome,
  type GradebookExportRecord,
  GRADEBOOK_EXPORT_KIND,
  unfinishedGradebookExports,
  type UnfinishedGradebookExport,
} from '#shared/data/gradebook-exports.ts';
import { getItems } from '#shared/data/items.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { isGradebookExportId } from '#shared/ids.ts';
import { logger } from '#shared/logger.ts';
import { presignDownload, putObject } from '#shared/storage/objects.ts';
import { gradebookExportKey } from '#shared/storage/keys.ts';
import { sendSummariesJob, SUMMARIES_JOB_MAX_DELIVERIES, type GradebookExportMessage } from '#shared/summaries/queue.ts';
import type { CourseJobKind } from '#shared/summaries/sweep.ts';
import { courseGradebookPage, type CourseGradebookRow } from './course-gradebook.ts';
import { csvLine, type CsvValue } from './csv.ts';
import { EXPORT_URL_SECONDS, MAX_EXPORT_GRADEABLES } from './export-limits.ts';
import { exportGradeableNotFound, formatUnknown, gradebookExportNotFound, tooManyExportGradeables } from './failures.ts';
import { limitedTo } from './gradebook.ts';

/** A new export id: `ge_` and 128 random bits (see GRADEBOOK_EXPORT_ID in shared/ids.ts). */
export const newGradebookExportId = (): string => `ge_${randomBytes(16).toString('base64url')}`;

/** A delivery holds its export this long: the worker's time limit in AWS (Lambda's maximum). */
export const EXPORT_LEASE_SECONDS = 15 * 60;

/** Students read and written at a time: a page's submissions are students × gradeables items. */
export const EXPORT_PAGE = 200;

/** The CSV's columns before the gradeables'. */
const STUDENT_COLUMNS = [
  'user_id',
  'first_name',
  'last_name',
  'registration_section',
  'rotating_section',
  'late_days_used',
  'late_days_remaining',
] as const satisfies readonly (keyof CourseGradebookRow)[];
/** Each gradeable's columns, named `<gradeable id> <field>`. */
const CELL_COLUMNS = ['score', 'max', 'days_late', 'status'] as const;

/** The CSV's header record. Pure. */
export const exportHeader = (gradeableIds: readonly string[]): string =>
  csvLine([...STUDENT_COLUMNS, ...gradeableIds.flatMap((id) => CELL_COLUMNS.map((column) => `${id} ${column}`))]);

/** One student's record, its cells in the header's order. Pure. */
export const exportLine = (row: CourseGradebookRow): string =>
  csvLine([
    ...STUDENT_COLUMNS.map((column) => row[column] as CsvValue),
    ...row.gradeables.flatMap((cell) => CELL_COLUMNS.map((column) => cell[column])),
  ]);

/**
 * The gradeables an export asks for, in the order asked (repeats once): each must be one the
 * caller sees; none named: undefined (every gradeable released to staff when it runs). Pure.
 */
export function chooseGradeables(
  asked: readonly string[] | undefined,
  documents: readonly GradeableDocument[],
  caller: Pick<Enrollment, 'group'>,
  now: Date,
): string[] | undefined {
  if (asked === undefined || asked.length === 0) return undefined;
  const ids = [...new Set(asked)];
  if (ids.length > MAX_EXPORT_GRADEABLES) throw tooManyExportGradeables();
  for (const id of ids) {
    const document = documents.find((candidate) => candidate.id === id);
    if (!document || !isVisible(document, caller, now)) throw exportGradeableNotFound({ gradeable_id: id });
  }
  return ids;
}

const finished = (state: GradebookExportRecord['state']) => state === 'done' || state === 'failed';

/** Every delivery ended without finishing it (the worker was stopped): it never will. Pure. */
const isAbandoned = (record: GradebookExportRecord, now: Date): boolean =>
  record.state === 'running' && (record.leaseUntil ?? 0) < now.getTime() && record.attempts >= SUMMARIES_JOB_MAX_DELIVERIES;

const ABANDONED = 'The export stopped before it was written, on every try. Ask for a new one.';

/** The sweep's view of gradebook exports (shared/summaries/sweep.ts): their index, their message, why one failed. */
export const gradebookExportSweep: CourseJobKind<UnfinishedGradebookExport> = {
  kind: GRADEBOOK_EXPORT_KIND,
  unfinished: unfinishedGradebookExports,
  send: ({ term, course, exportId }) => sendSummariesJob({ kind: 'gradebook-export', term, course, exportId }),
  reasons: { abandoned: ABANDONED, neverStarted: 'The export never started: its message was lost on every try. Ask for a new one.' },
};

/** The export as both routes answer it; `url` once done. Pure. */
export function exportView(record: GradebookExportRecord, now: Date, url: { url: string; expiresAt: string } | undefined = undefined) {
  const state = isAbandoned(record, now) ? 'failed' : record.state;
  return {
    export_id: record.exportId,
    status: state,
    format: record.format,
    created_at: record.createdAt,
    started_at: record.startedAt ?? null,
    finished_at: record.finishedAt ?? null,
    gradeable_ids: record.gradeableIds ? [...record.gradeableIds] : null,
    sections: record.sections ? [...record.sections] : null,
    students: record.students ?? null,
    bytes: record.bytes ?? null,
    url: url?.url ?? null,
    url_expires_at: url?.expiresAt ?? null,
    message:
      state === 'failed'
        ? ((record.state === 'failed' ? record.message : undefined) ?? ABANDONED)
        : state === 'done'
          ? `Exported ${record.students ?? 0} ${record.students === 1 ? 'student' : 'students'}.`
          : state === 'running'
            ? 'Writing the export.'
            : 'Waiting on the queue.',
  };
}

/** `POST …/gradebook/exports`: the export recorded and queued, answered at once. */
export async function requestGradebookExport(
  context: {
    caller: { userId: string };
    enrollment: Enrollment;
    course: Course;
    documents: readonly GradeableDocument[];
    body: { format: string; gradeable_ids?: string[] | undefined };
  },
  now = new Date(),
) {
  const { caller, enrollment, course, documents, body } = context;
  if (body.format.trim().toLowerCase() !== 'csv') throw formatUnknown({ format: body.format });
  const gradeableIds = chooseGradeables(body.gradeable_ids, documents, enrollment, now);
  const sections = limitedTo(enrollment);
  const record: GradebookExportRecord = {
    exportId: newGradebookExportId(),
    term: course.term,
    course: course.course,
    format: 'csv',
    state: 'queued',
    requestedBy: caller.userId,
    ...(sections ? { sections: [...sections] } : {}),
    ...(gradeableIds ? { gradeableIds } : {}),
    createdAt: now.toISOString(),
    attempts: 0,
  };
  await createGradebookExport(record);
  const message: GradebookExportMessage = { kind: 'gradebook-export', term: course.term, course: course.course, exportId: record.exportId };
  try {
    await sendSummariesJob(message);
  } catch (error) {
    await finishGradebookExport(
      course.term,
      course.course,
      record.exportId,
      { state: 'failed', at: new Date().toISOString(), message: 'The export could not be queued. Ask again.' },
      undefined,
    ).catch(() => undefined);
    throw error;
  }
  return exportView(record, now);
}

/** What `GET …/gradebook/exports/{export_id}` reads with the token check: the export. */
export const gradebookExportReads = ({ semester, course, export_id }: { semester: string; course: string; export_id: string }) => ({
  record: gradebookExportRef(semester, course, export_id),
});

/** `GET …/gradebook/exports/{export_id}`: the caller's own export (anyone else's reads as none), with a fresh link once done. */
export async function gradebookExportStatus(
  exportId: string,
  caller: { userId: string },
  record: GradebookExportRecord | undefined,
  now = new Date(),
) {
  if (!record || record.requestedBy !== caller.userId) throw gradebookExportNotFound({ export_id: exportId });
  if (record.state !== 'done') return exportView(record, now);
  const url = await presignDownload(gradebookExportKey(record.term, record.course, record.exportId), {
    expiresSeconds: EXPORT_URL_SECONDS,
    fileName: `${record.course}-${record.term}-gradebook.csv`,
  });
  return exportView(record, now, { url, expiresAt: new Date(now.getTime() + EXPORT_URL_SECONDS * 1000).toISOString() });
}

/**
 * The export's CSV, written page by page of EXPORT_PAGE students (the route's page, read the same
 * way), so that memory holds one page of reads and the text written; the number of students.
 */
export async function writeGradebookCsv(
  course: Course,
  documents: readonly GradeableDocument[],
  scope: { readonly sections?: readonly string[] | undefined; readonly gradeableIds?: readonly string[] | undefined },
  now: Date,
): Promise<{ csv: Buffer; students: number }> {
  const grader = {
    group: scope.sections ? courseGroups.limitedAccessGrader : courseGroups.instructor,
    gradingSections: [...(scope.sections ?? [])],
  };
  // Gradeables removed since the export was asked for are left out.
  const chosen = scope.gradeableIds
    ?.map((id) => documents.find((document) => document.id === id))
    .filter((document) => document !== undefined);
  const chunks: Buffer[] = [];
  let students = 0;
  let after: string[] | undefined;
  let header = false;
  for (;;) {
    const page = await courseGradebookPage(course, documents, grader, { size: EXPORT_PAGE, after }, now, chosen);
    if (!header) {
      chunks.push(Buffer.from(exportHeader(page.gradeables.map((document) => document.id))));
      header = true;
    }
    chunks.push(Buffer.from(page.rows.map(exportLine).join('')));
    students += page.rows.length;
    const last = page.rows.at(-1);
    if (page.next_cursor === null || !last) break;
    after = [last.registration_section, last.user_id];
  }
  return { csv: Buffer.concat(chunks), students };
}

/**
 * The worker, for one delivery of an export's message: claims it (a copy of a message already
 * acted on is done with at once), writes its CSV to the bucket and ends it done, or failed with
 * why. The error is thrown only when the end could not be recorded, for the queue to deliver again.
 */
export async function runGradebookExport(message: GradebookExportMessage, now = new Date()): Promise<void> {
  const { term, course: code, exportId } = message;
  if (!isGradebookExportId(exportId)) {
    logger.warn({ message: 'Gradebook export message with a malformed id', exportId: String(exportId).slice(0, 64) });
    return;
  }
  const { record, course } = await getItems({ record: gradebookExportRef(term, code, exportId), course: courseRef(term, code) });
  if (!record || finished(record.state)) return;
  const lease = await claimGradebookExport(term, code, exportId, { now, leaseUntil: now.getTime() + EXPORT_LEASE_SECONDS * 1000 });
  if (lease === undefined) return;
  let outcome: GradebookExportOutcome;
  if (!course) outcome = { state: 'failed', at: new Date().toISOString(), message: 'The course no longer exists.' };
  else {
    try {
      const documents = await gradeablesOfCourse(term, code);
      const { csv, students } = await writeGradebookCsv(course, documents, record, new Date());
      await putObject(gradebookExportKey(term, code, exportId), csv, csv.length);
      outcome = { state: 'done', at: new Date().toISOString(), students, bytes: csv.length };
    } catch (error) {
      logger.error({ message: 'Gradebook export failed', course: `${term}/${code}`, exportId, error: error as Error });
      outcome = {
        state: 'failed',
        at: new Date().toISOString(),
        message: `The export could not be written (${exportId}). Ask for a new one.`,
      };
    }
  }
  await finishGradebookExport(term, code, exportId, outcome, lease);
}
