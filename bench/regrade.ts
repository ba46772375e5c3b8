import { batchWrite } from '#shared/data/batch-write.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { REGRADE_CHUNK } from '#shared/grading/regrade.ts';
import { ms, progress, type Row, type SectionResult } from './common.ts';
import { describeWaves, record, waves, type RecordedRequest } from './recorder.ts';
import { createWorld, invoke, request } from './world.ts';

type WithTables = <T>(prefix: string, body: () => Promise<T>) => Promise<T>;

const SECTION = 'Scale';

/**
 * A regrade of every active version for 100 and 1,000 students, each with one graded
 * version: the submissions are a paged Query, then one transaction per 41 versions (a job and a
 * version update each, the queue shards' counters, the regrade's counts). Round trips should grow with
 * ⌈n / 41⌉, nothing else.
 */
export async function measureRegrade(withTables: WithTables): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const students of [100, 1_000]) {
    await withTables(`regrade${students}-`, async () => {
      progress(`scale: regrade of ${students} active versions (setting up)`);
      const world = await createWorld({ submit: false });
      const { course, gradeableId, tokens } = world;
      await gradedSubmissions(course.term, course.course, gradeableId, students);
      const event = request('POST', `/api/${course.term}/${course.course}/gradeable/${gradeableId}/regrade`, {
        token: tokens.instructor,
        json: {},
      });
      progress(`scale: regrade of ${students} active versions`);
      const started = performance.now();
      const { value, requests } = await record(() => invoke('regrade', event));
      const elapsed = performance.now() - started;
      const data = value.data as { queued?: number } | undefined;
      const transactions = requests.filter((entry) => entry.operation === 'TransactWriteItems').length;
      const expected = Math.ceil(students / REGRADE_CHUNK);
      rows.push({
        section: SECTION,
        name: `regrade of every active version, ${students.toLocaleString('en')} students`,
        target: `⌈n / ${REGRADE_CHUNK}⌉ = ${expected} transactions`,
        baseline: '—',
        measured: `${data?.queued ?? 0} queued; ${requests.length} requests, ${waves(requests).length} round trips: ${shortWaves(requests)}; ${ms(elapsed)}`,
        met: value.status === 'success' && data?.queued === students && transactions === expected,
      });
      if (value.status !== 'success') notes.push(`- regrade of ${students} versions failed: ${value.message}`);
    });
  }
  return { rows, notes };
}

/** `count` students, each with one graded (and active) version of the gradeable. */
async function gradedSubmissions(term: string, course: string, gradeableId: string, count: number): Promise<void> {
  const TableName = tableName(tables.submissions);
  const now = new Date().toISOString();
  await batchWrite(
    Array.from({ length: count }, (_, index) => {
      const ownerId = `regraded${String(index + 1).padStart(5, '0')}`;
      return {
        tableName: TableName,
        request: {
          PutRequest: {
            Item: {
              gradeableKey: gradeableKey(term, course, gradeableId),
              ownerId,
              term,
              course,
              gradeableId,
              highestVersion: 1,
              activeVersion: 1,
              versions: [{ version: 1, submittedAt: now, submittedBy: ownerId, daysLate: 0, ticket: 0, state: 'graded', points: 1 }],
            },
          },
        },
      };
    }),
    { parallel: 8 },
  );
}

/** The round trips, a run of transactions counted: `BatchGetItem → Query → TransactWriteItems ×21`. */
function shortWaves(requests: readonly RecordedRequest[]): string {
  const parts = describeWaves(requests).split(' → ');
  const out: string[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    const match = last?.match(/^(.*?)(?: ×(\d+))?$/);
    if (match && match[1] === part) out[out.length - 1] = `${part} ×${Number(match[2] ?? 1) + 1}`;
    else out.push(part);
  }
  return out.join(' → ');
}
