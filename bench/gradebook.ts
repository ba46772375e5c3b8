import type { Course } from '#shared/courses/course.ts';
import { batchWrite } from '#shared/data/batch-write.ts';
import { dynamo } from '#shared/data/client.ts';
import { enrollmentItem } from '#shared/data/enrollments.ts';
import { gradeableKey, studentKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { gradebookReads, gradebookRows, pageOf, readPage, wholeSources } from '#shared/gradebook/gradebook.ts';
import { createGradebookExport, gradebookExportRef } from '#shared/data/gradebook-exports.ts';
import { getItems } from '#shared/data/items.ts';
import { runAsFunction } from '#shared/environment.ts';
import { newGradebookExportId, runGradebookExport } from '#shared/gradebook/exports.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { localFunctionScope } from '#infra/local/functions.ts';
import { encodeCursor } from '#shared/paging.ts';
import { median, ms, progress, ratio, type Row, type SectionResult } from './common.ts';
import { createWorld, invoke, request, vcsGradeable } from './world.ts';

type WithTables = <T>(prefix: string, body: () => Promise<T>) => Promise<T>;

const SECTION = 'Gradebook';
const GRADEABLES = 40;
const SECTIONS = 20;
/** The target: a page (100 students, the default) in at most this long. */
const TARGET_MS = 1_000;
const DAY = 86_400_000;

/** DynamoDB requests of the shared client while counting, and the items they answered. */
let counting: { requests: number; items: number } | undefined;
let installed = false;
function installCounter(): void {
  if (installed) return;
  installed = true;
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      if (counting) {
        const output = result.output as { Count?: number; Responses?: Record<string, unknown[]>; Item?: unknown };
        counting.requests++;
        counting.items +=
          output.Count ?? Object.values(output.Responses ?? {}).reduce((sum, list) => sum + list.length, 0) + (output.Item ? 1 : 0);
      }
      return result;
    },
    { step: 'initialize', name: 'benchGradebookCounter' },
  );
}

async function counted<T>(action: () => Promise<T>): Promise<{ value: T; requests: number; items: number; time: number }> {
  installCounter();
  counting = { requests: 0, items: 0 };
  const started = performance.now();
  try {
    const value = await action();
    return { value, ...counting, time: performance.now() - started };
  } finally {
    counting = undefined;
  }
}

interface Case {
  readonly students: number;
  readonly page: { requests: number; items: number; times: number[]; rows: number };
  readonly baseline: { requests: number; items: number; times: number[] };
}

/**
 * One page of a gradeable's gradebook (100 students from the middle of the class, the gradeable
 * due last so that the 39 before it are charged late days first) at 500 and 5,000 students × 40
 * gradeables, through the route's handler; beside it, in the same run, the previous design: every
 * page reads the whole class (enrollments, late days, this and every earlier gradeable's
 * submissions) and keeps one page. Reads per page should not grow with the class.
 */
export async function measureGradebook(withTables: WithTables): Promise<SectionResult> {
  const cases: Case[] = [];
  for (const students of [500, 5_000]) {
    cases.push(
      await withTables(`gradebook${students}-`, async () => {
        progress(`gradebook: ${students} students × ${GRADEABLES} gradeables (setting up)`);
        const world = await createWorld({ submit: false });
        const last = await buildClass(world.course, students);
        const { course, tokens } = world;
        // A page from the middle of the class: after the first student of the middle section.
        const middle = String(SECTIONS / 2);
        const cursor = encodeCursor([middle, studentId(SECTIONS / 2 - 1)]);
        const path = `/api/${course.term}/${course.course}/gradeable/${last}/gradebook`;
        const event = request('GET', path, { token: tokens.instructor, query: { cursor } });
        for (let i = 0; i < 5; i++) await invoke('gradebook', event); // warm: the JVM too
        const page = { requests: 0, items: 0, times: [] as number[], rows: 0 };
        for (let i = 0; i < 15; i++) {
          const run = await counted(() => invoke('gradebook', event));
          if (run.value.status !== 'success') throw new Error(`bench: gradebook failed: ${run.value.message}`);
          page.times.push(run.time);
          page.requests = run.requests;
          page.items = run.items;
          page.rows = (run.value.data as { students: unknown[] }).students.length;
        }
        progress(`gradebook: ${students} students, the whole-class baseline`);
        const instructor = { term: course.term, course: course.course, userId: world.users.instructor.userId };
        const grader = { ...instructor, group: 1 as const, registrationSection: null, rotatingSection: null, gradingSections: [] };
        const baseline = { requests: 0, items: 0, times: [] as number[] };
        // Minutes at 5,000 students on a loaded machine: once there.
        for (let i = 0; i < (students > 1_000 ? 1 : 3); i++) {
          const run = await counted(async () => {
            const data = await gradebookReads(course, last);
            return pageOf(gradebookRows(course, data.gradeable!, wholeSources(grader, data)), readPage({ cursor }));
          });
          baseline.times.push(run.time);
          baseline.requests = run.requests;
          baseline.items = run.items;
        }
        return { students, page, baseline };
      }),
    );
  }
  const rows: Row[] = [];
  const notes: string[] = [];
  const small = cases[0]!;
  for (const item of cases) {
    const time = median(item.page.times);
    const baseTime = median(item.baseline.times);
    const same = item.page.requests === small.page.requests && item.page.items === small.page.items;
    const first = item === small;
    const met = time <= TARGET_MS && same;
    rows.push({
      section: SECTION,
      name: `a page of 100 students, ${item.students.toLocaleString('en')} students × ${GRADEABLES} gradeables (due last: 39 charged before it)`,
      target: `≤ ${ms(TARGET_MS)}; reads per page ${first ? 'independent of the class' : 'as at 500 students'}`,
      baseline: `whole class read per page: ${item.baseline.requests} requests, ${item.baseline.items.toLocaleString('en')} items, p50 ${ms(baseTime)}`,
      measured: `${item.page.rows} rows; ${item.page.requests} requests, ${item.page.items.toLocaleString('en')} items read (token check included), p50 ${ms(time)} (${ratio(time / baseTime)} the baseline's time)`,
      met,
    });
    if (!met) {
      notes.push(
        `- **Gradebook, ${item.students} students**: p50 ${ms(time)}, ${item.page.requests} requests and ${item.page.items} items (500 students: ${small.page.requests} and ${small.page.items}).`,
      );
    }
  }
  return { rows, notes };
}

const studentId = (index: number) => `gb_${String(index).padStart(5, '0')}`;

/**
 * `students` in SECTIONS sections, each with a graded version of every one of 40 gradeables due
 * a day apart in the past (every seventh a day late), written in batches as the worker leaves
 * them; the id of the gradeable due last.
 */
async function buildClass(course: Course, students: number): Promise<string> {
  const now = Date.now();
  const ids = Array.from({ length: GRADEABLES }, (_, index) => `hw${String(index + 1).padStart(2, '0')}`);
  // vcsGradeable's due date is 7 days after the date given: hw01 is due 48 days ago, hw40 9.
  for (const [index, id] of ids.entries()) await uploadGradeable(course, vcsGradeable(id, new Date(now - (55 - index) * DAY)));
  const submittedAt = new Date(now - 5 * DAY).toISOString();
  const writes = Array.from({ length: students }, (_, index) => {
    const userId = studentId(index);
    const section = String((index % SECTIONS) + 1);
    const enrollment = { term: course.term, course: course.course, userId, group: 4 as const, registrationSection: section };
    return [
      {
        tableName: tableName(tables.enrollments),
        request: { PutRequest: { Item: enrollmentItem({ ...enrollment, rotatingSection: null, gradingSections: [] }) } },
      },
      ...ids.map((gradeableId, position) => {
        const daysLate = (index + position) % 7 === 0 ? 1 : 0;
        const points = (index + position) % 6;
        return {
          tableName: tableName(tables.submissions),
          request: {
            PutRequest: {
              Item: {
                gradeableKey: gradeableKey(course.term, course.course, gradeableId),
                ownerId: userId,
                term: course.term,
                course: course.course,
                gradeableId,
                studentKey: studentKey(course.term, course.course, userId),
                highestVersion: 1,
                activeVersion: 1,
                activeDaysLate: daysLate,
                versions: [{ version: 1, submittedAt, submittedBy: userId, daysLate, ticket: 1, state: 'graded', points }],
                activeResults: {
                  version: 1,
                  testCases: ['Program runs', 'Prints a greeting'].map((name, test) => ({
                    name,
                    details: '',
                    is_extra_credit: false,
                    points_available: 2 + test,
                    has_extra_results: false,
                    points_received: Math.min(points, 2 + test),
                    testcase_message: '',
                    autochecks: [],
                    hidden: false,
                  })),
                },
              },
            },
          },
        };
      }),
    ];
  }).flat();
  let shown = 0;
  await batchWrite(writes, {
    parallel: 8,
    onProgress: (written) => {
      if (written - shown >= 50_000) {
        shown = written;
        progress(`gradebook: ${written.toLocaleString('en')} of ${writes.length.toLocaleString('en')} items written`);
      }
    },
  });
  return ids.at(-1)!;
}

/** The export's target: within a Lambda invocation's 15 minutes, far within its memory. */
const EXPORT_TARGET_MS = 15 * 60_000;
const EXPORT_TARGET_MB = 1_024;

/**
 * A whole gradebook export of 5,000 students × 40 gradeables (200,000 submissions, written with
 * batch writes as the worker leaves them), as the summaries worker runs it from its queue: its
 * time, the process's peak memory above what it held before (sampled every 20 ms), its requests
 * and the CSV's size.
 */
export async function measureGradebookExport(withTables: WithTables): Promise<SectionResult> {
  const students = 5_000;
  return withTables('gbexport-', async () => {
    progress(`gradebook export: ${students} students × ${GRADEABLES} gradeables (setting up)`);
    const world = await createWorld({ submit: false });
    await buildClass(world.course, students);
    const { course } = world;
    const exportId = newGradebookExportId();
    await createGradebookExport({
      exportId,
      term: course.term,
      course: course.course,
      format: 'csv',
      state: 'queued',
      requestedBy: world.users.instructor.userId,
      createdAt: new Date().toISOString(),
      attempts: 0,
    });
    progress('gradebook export: running it as the summaries worker');
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const run = await counted(() =>
      runAsFunction(localFunctionScope('summaries-worker'), () =>
        runGradebookExport({ kind: 'gradebook-export', term: course.term, course: course.course, exportId }),
      ),
    );
    clearInterval(sampler);
    const { record } = await getItems({ record: gradebookExportRef(course.term, course.course, exportId) });
    if (record?.state !== 'done') throw new Error(`bench: the export did not finish: ${JSON.stringify(record)}`);
    const peakMb = (peak - before) / 1024 / 1024;
    const sizeMb = (record.bytes ?? 0) / 1024 / 1024;
    const met = run.time <= EXPORT_TARGET_MS && peakMb <= EXPORT_TARGET_MB;
    const row: Row = {
      section: SECTION,
      name: `CSV export, ${students.toLocaleString('en')} students × ${GRADEABLES} gradeables (the summaries worker, page by page of 200)`,
      target: `≤ ${ms(EXPORT_TARGET_MS)} (Lambda's limit), peak memory ≤ ${EXPORT_TARGET_MB} MB above the start`,
      baseline: '—',
      measured: `${record.students} students, ${sizeMb.toFixed(1)} MB of CSV in ${ms(run.time)}; peak RSS +${peakMb.toFixed(0)} MB; ${run.requests} requests, ${run.items.toLocaleString('en')} items read`,
      met,
    };
    return { rows: [row], notes: met ? [] : [`- **Gradebook export**: ${row.measured}.`] };
  });
}
