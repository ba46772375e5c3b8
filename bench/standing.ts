import * as lowLevel from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { getItems } from '#shared/data/items.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { median, progress, sleep, type Row } from './common.ts';
import { describeWaves, record, type RecordedRequest } from './recorder.ts';
import { invoke, request, type World } from './world.ts';

/**
 * What a student's standing costs `values`, and how good its queue estimate is: the bench's
 * measurements of the fields values gained (docs/api.md, docs/grading.md).
 */

/** The tables (and index) only the standing reads: everything else values read before it had them. */
const STANDING_SOURCES = new Set(['lateDays', 'jobs:times', 'gradeables:Query', 'submissions:byStudent', 'teams:byStudent']);

/**
 * Items one `values` call reads, by what reads them, counted by sending its recorded DynamoDB
 * requests again and counting what they return; the items the standing reads (the student's
 * late-day item, the recent job times, the course's gradeables and the student's active days late
 * on each) are told apart from those values read before it.
 */
export async function measureValuesReads(world: World, scenarioPath: string, token: string): Promise<Row> {
  progress('requests: items read per values call');
  const { requests } = await record(() => invoke('gradeable-values', request('GET', scenarioPath, { token })));
  let before = 0;
  let standing = 0;
  for (const { source, items } of await itemsRead(requests)) {
    if (STANDING_SOURCES.has(source)) standing += items;
    else before += items;
  }
  return {
    section: 'DynamoDB requests per call',
    name: 'gradeable-values: items read per call',
    target: 'one round trip, bounded by the course’s gradeables',
    baseline: `before the standing fields: ${before} items`,
    measured: `${before + standing} items (+${standing} for the standing), round trips: ${describeWaves(requests)}`,
    met: undefined,
  };
}

async function itemsRead(requests: readonly RecordedRequest[]): Promise<{ source: string; items: number }[]> {
  const counted: { source: string; items: number }[] = [];
  for (const recorded of requests) {
    const input = recorded.input as Record<string, unknown>;
    if (recorded.operation === 'BatchGetItem') {
      const answer = await dynamo().send(new lowLevel.BatchGetItemCommand(input as never));
      for (const [table, items] of Object.entries(answer.Responses ?? {})) {
        const name = tableKind(table);
        for (const item of items) {
          const source = name === 'jobs' && unmarshall(item).job === 'times' ? 'jobs:times' : name;
          counted.push({ source, items: 1 });
        }
      }
    } else if (recorded.operation === 'Query') {
      const answer = await dynamo().send(new lowLevel.QueryCommand(input as never));
      const name = tableKind(String(input.TableName));
      counted.push({ source: input.IndexName ? `${name}:${String(input.IndexName)}` : `${name}:Query`, items: answer.Items?.length ?? 0 });
    }
  }
  return counted;
}

/** A table's name without the run's prefix, first letter lower case (`Jobs` → `jobs`, `LateDays` → `lateDays`). */
const tableKind = (table: string): string => {
  const bare = table.replace(/^.*-/, '');
  return bare.charAt(0).toLowerCase() + bare.slice(1);
};

/** One version's queue estimate as first read, and its wait until its grading started. */
interface EtaSample {
  readonly estimate: number;
  readonly waitSeconds: number;
}

/**
 * Submits `students`' versions one after another while the workers run, reads each one's
 * `queue_eta_seconds` right after its submission, and watches the submissions until each version's
 * grading starts (its state leaves `queued`, looked at every 100 ms): the median relative error of
 * the first estimate against the wait.
 */
export async function measureQueueEstimate(
  world: World,
  gradeableId: string,
  students: readonly { readonly userId: string; readonly token: string }[],
  submit: (student: { readonly userId: string; readonly token: string }) => Promise<void>,
): Promise<{ row: Row; samples: readonly EtaSample[] }> {
  const { course } = world;
  const submittedAt = new Map<string, { at: number; estimate: number | null }>();
  const started = new Map<string, number>();
  let watching = true;
  const watcher = (async () => {
    while (watching || started.size < submittedAt.size) {
      const refs = Object.fromEntries(
        [...submittedAt.keys()]
          .filter((userId) => !started.has(userId))
          .map((userId) => [userId, submissionRef(course.term, course.course, gradeableId, userId)]),
      );
      if (Object.keys(refs).length > 0) {
        const read = await getItems(refs);
        const now = performance.now();
        for (const [userId, submission] of Object.entries(read)) {
          if (submission && submission.versions.at(-1)?.state !== 'queued') started.set(userId, now);
        }
      }
      await sleep(100);
    }
  })();
  for (const student of students) {
    const at = performance.now();
    await submit(student);
    const values = await invoke(
      'gradeable-values',
      request('GET', `/api/${course.term}/${course.course}/gradeable/${gradeableId}/values`, { token: student.token }),
    );
    const estimate = (values.data as { queue_eta_seconds?: number | null } | undefined)?.queue_eta_seconds ?? null;
    submittedAt.set(student.userId, { at, estimate });
  }
  watching = false;
  await watcher;
  const samples: EtaSample[] = [];
  let unestimated = 0;
  for (const [userId, { at, estimate }] of submittedAt) {
    const start = started.get(userId);
    if (estimate === null || start === undefined) unestimated++;
    else samples.push({ estimate, waitSeconds: (start - at) / 1000 });
  }
  const errors = samples.map((sample) => Math.abs(sample.estimate - sample.waitSeconds) / Math.max(sample.waitSeconds, 0.5));
  const medianError = errors.length > 0 ? median(errors) : Number.NaN;
  const waits = samples.map((sample) => sample.waitSeconds);
  return {
    samples,
    row: {
      section: 'Grading',
      name: `queue_eta_seconds against the wait, ${students.length} versions submitted one after another`,
      target: 'median relative error ≤ 50%',
      baseline: `actual waits: median ${waits.length > 0 ? median(waits).toFixed(1) : '—'} s, longest ${waits.length > 0 ? Math.max(...waits).toFixed(1) : '—'} s`,
      measured: `median relative error ${(medianError * 100).toFixed(0)}% over ${samples.length} estimates (${unestimated} without one: graded at once, or none yet)`,
      met: samples.length > 0 && medianError <= 0.5,
    },
  };
}
