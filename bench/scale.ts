import { readClassList } from '#shared/courses/class-list.ts';
import { importClassList } from '#shared/courses/enroll.ts';
import { bootstrapCourse } from '#shared/courses/create-course.ts';
import type { Course, Enrollment } from '#shared/courses/course.ts';
import { batchWrite } from '#shared/data/batch-write.ts';
import { enrollmentItem } from '#shared/data/enrollments.ts';
import { QUEUE_SHARDS } from '#shared/data/jobs.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { putTerm } from '#shared/data/terms.ts';
import { putUser, userItem } from '#shared/data/users.ts';
import { ticketOf } from '#shared/queue/tickets.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { existsSync } from 'node:fs';
import type { ApiEvent } from '#shared/http/types.ts';
import { median, ms, progress, ratio, type Row, type SectionResult } from './common.ts';
import { describeWaves, record, waves, type RecordedRequest } from './recorder.ts';
import { createWorld, invoke, request, submitEvent, vcsGradeable } from './world.ts';

type WithTables = <T>(prefix: string, body: () => Promise<T>) => Promise<T>;

const SECTION = 'Scale';
/** "Flat": at most this much slower than the smallest case (DynamoDB Local's own noise included). */
const FLAT = 1.5;
const VALUES_CALLS = 150;

/**
 * `queue_position` (the values call) with 10, 1,000 and 10,000 jobs queued ahead: the jobs are
 * batch-written with the queue counters advanced to match, then the student submits (taking the
 * last ticket) and reads their values.
 */
export async function measureQueuePosition(withTables: WithTables): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const cases: { queued: number; prefix: string; event: ApiEvent; requests: RecordedRequest[]; position: unknown; times: number[] }[] = [];
  for (const queued of [10, 1_000, 10_000]) {
    const prefix = `queue${queued}-`;
    cases.push(
      await withTables(prefix, async () => {
        progress(`scale: values with ${queued} jobs queued (setting up)`);
        const world = await createWorld({ submit: false });
        await queueJobs(queued - 1);
        const submitted = await invoke('submit-vcs', submitEvent(world, 'student'));
        if (submitted.status !== 'success') throw new Error(`bench: submission failed: ${submitted.message}`);
        const { course, gradeableId, tokens } = world;
        const event = request('GET', `/api/${course.term}/${course.course}/gradeable/${gradeableId}/values`, { token: tokens.student });
        for (let i = 0; i < 30; i++) await invoke('gradeable-values', event); // the JVM warms up too
        const { value, requests } = await record(() => invoke('gradeable-values', event));
        return {
          queued,
          prefix,
          event,
          requests,
          position: (value.data as { queue_position?: unknown } | undefined)?.queue_position,
          times: [],
        };
      }),
    );
  }
  // The three cases take turns, call by call, so a busy moment of the machine hits them alike.
  progress(`scale: values, ${VALUES_CALLS} calls per queue length, interleaved`);
  for (let i = 0; i < VALUES_CALLS; i++) {
    for (const item of cases) {
      process.env.TABLE_PREFIX = item.prefix;
      const started = performance.now();
      await invoke('gradeable-values', item.event);
      item.times.push(performance.now() - started);
    }
  }
  const smallest = cases[0]!;
  const smallTime = median(smallest.times);
  for (const { queued, requests, position, times } of cases) {
    const time = median(times);
    const first = queued === smallest.queued;
    const met = first ? undefined : requests.length === smallest.requests.length && time <= smallTime * FLAT;
    rows.push({
      section: SECTION,
      name: `values (queue_position) with ${queued.toLocaleString('en')} jobs queued`,
      target: first ? 'flat' : `flat: same requests, ≤ ${FLAT}× the 10-job time`,
      baseline: first ? '—' : `10 jobs: ${smallest.requests.length} request(s), p50 ${ms(smallTime)}`,
      measured: `position ${position}; ${describe(requests)}, p50 ${ms(time)}${first ? '' : ` (${ratio(time / smallTime)})`}`,
      met,
    });
    if (position !== queued) notes.push(`- values with ${queued} jobs queued reported queue_position ${position}, expected ${queued}.`);
  }
  return { rows, notes };
}

/** `count` queued jobs spread over the queue's counters in turn, one a millisecond, and the counters' sets as if they had been submitted. */
async function queueJobs(count: number): Promise<void> {
  const TableName = tableName(tables.jobs);
  const now = new Date().toISOString();
  const start = Date.now() - count;
  const ticket = (index: number) => ticketOf({ lane: 0, at: start + index, shard: index % QUEUE_SHARDS, salt: 0 });
  const jobs = Array.from({ length: count }, (_, index) => ({
    tableName: TableName,
    request: {
      PutRequest: {
        Item: {
          job: String(ticket(index)),
          gradeableKey: gradeableKey('x', 'y', 'z'),
          term: 'x',
          course: 'y',
          gradeableId: 'z',
          ownerId: `queued${index + 1}`,
          version: 1,
          state: 'queued',
          attempts: 0,
          createdAt: now,
        },
      },
    },
  }));
  for (let shard = 0; shard < QUEUE_SHARDS; shard++) {
    const queued = new Set(
      Array.from({ length: count }, (_, index) => index)
        .filter((index) => index % QUEUE_SHARDS === shard)
        .map(ticket),
    );
    if (queued.size > 0)
      jobs.push({ tableName: TableName, request: { PutRequest: { Item: { job: `tickets#${shard}`, queued } as never } } });
  }
  await batchWrite(jobs, { parallel: 8 });
}

/**
 * Grade summaries (shared/summaries/generate.ts, when it exists) for 100 and 1,000 students × 20
 * released gradeables, every student with a graded submission of each: requests and time should
 * grow linearly with students + gradeables.
 */
export async function measureSummaries(withTables: WithTables): Promise<SectionResult> {
  const module = '#shared/summaries/generate.ts';
  if (!existsSync('shared/summaries/generate.ts')) {
    return {
      rows: [
        {
          section: SECTION,
          name: 'grade summaries',
          target: 'linear',
          baseline: '—',
          measured: 'not measured: shared/summaries/generate.ts does not exist yet',
          met: undefined,
        },
      ],
      notes: [],
    };
  }
  const { generateSummaries } = (await import(module)) as { generateSummaries: (course: Course) => Promise<unknown> };
  const GRADEABLES = 20;
  const rows: Row[] = [];
  const notes: string[] = [];
  let small: { students: number; time: number; requests: RecordedRequest[] } | undefined;
  for (const students of [100, 1_000]) {
    const result = await withTables(`summaries${students}-`, async () => {
      progress(`scale: summaries, ${students} students × ${GRADEABLES} gradeables (setting up)`);
      const course = await summaryCourse(students, GRADEABLES);
      progress(`scale: summaries, ${students} students × ${GRADEABLES} gradeables (generating)`);
      await generateSummaries(course); // warm, and a previous generation to replace, as nightly
      // The fastest of a few runs: the least disturbed by whatever else the machine does.
      let best: { time: number; requests: RecordedRequest[] } | undefined;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const { requests } = await record(() => generateSummaries(course));
        const time = performance.now() - started;
        if (!best || time < best.time) best = { time, requests };
      }
      return { students, ...best! };
    });
    // Linear in students + gradeables: with the gradeables fixed, at most the students' growth.
    const growth = small ? result.students / small.students : 1;
    const requestGrowth = small ? result.requests.length / small.requests.length : 1;
    const timeGrowth = small ? result.time / small.time : 1;
    const met = small ? requestGrowth <= growth * 1.2 && timeGrowth <= growth * 1.5 : undefined;
    const dynamoTime = busyTime(result.requests);
    rows.push({
      section: SECTION,
      name: `grade summaries, ${students.toLocaleString('en')} students × ${GRADEABLES} gradeables`,
      target: small ? `linear: ≤ ${ratio(growth)} the 100-student requests, time within 1.5× of that` : 'linear',
      baseline: small ? `100 students: ${small.requests.length} requests, ${ms(small.time)}` : '—',
      measured: `${describe(result.requests)}, ${ms(result.time)} (DynamoDB busy ${ms(dynamoTime)})${small ? `; ${ratio(requestGrowth)} requests, ${ratio(timeGrowth)} time` : ''}`,
      met,
    });
    if (met === false) {
      notes.push(
        `- **Grade summaries** grew ${ratio(timeGrowth)} in time (requests ${ratio(requestGrowth)}) for ${ratio(growth)} the students. DynamoDB was busy ${ms(dynamoTime)} of the ${ms(result.time)} (${describeWaves(result.requests)}); ${dynamoTime > result.time / 2 ? 'so most of the time is DynamoDB Local writing and deleting summary items (BatchWriteItem, 25 items a request, bigger items with more gradeables), on the same two cores as the bench. Requests stay linear; against DynamoDB proper, with its writes spread over partitions and more parallel batches, the time would follow them' : 'so most of the time is computing the summaries in the function itself: that part grows faster than the students and is where to look (e.g. per-student lookups that scan a list)'}.`,
      );
    }
    small ??= result;
  }
  return { rows, notes };
}

async function summaryCourse(students: number, gradeables: number): Promise<Course> {
  const course: Course = {
    term: 's27',
    course: 'summaries',
    displayName: 'Summaries',
    archived: false,
    timeZone: 'UTC',
    accessGroup: 'summaries',
  };
  await putTerm({ termId: 's27', name: 'Summaries', startDate: '2026-01-01', endDate: '2026-12-31' });
  await putUser({ userId: 'sum_instructor', givenName: 'S', familyName: 'I', email: 's@x.edu', accessLevel: 'faculty' });
  await bootstrapCourse(course, 'sum_instructor');
  const past = new Date(Date.now() - 40 * 86_400_000);
  const ids = Array.from({ length: gradeables }, (_, index) => `hw${String(index + 1).padStart(2, '0')}`);
  for (const id of ids) await uploadGradeable(course, vcsGradeable(id, past));
  const userIds = Array.from({ length: students }, (_, index) => `sum_s${index}`);
  const writes = userIds.flatMap((userId, index) => {
    const enrollment: Enrollment = {
      term: course.term,
      course: course.course,
      userId,
      group: 4,
      registrationSection: String((index % 10) + 1),
      rotatingSection: null,
      gradingSections: [],
    };
    return [
      {
        tableName: tableName(tables.users),
        request: {
          PutRequest: {
            Item: userItem({ userId, givenName: 'G', familyName: `F${index}`, email: `${userId}@x.edu`, accessLevel: 'user' }),
          },
        },
      },
      { tableName: tableName(tables.enrollments), request: { PutRequest: { Item: enrollmentItem(enrollment) } } },
      ...ids.map((gradeableId) => ({
        tableName: tableName(tables.submissions),
        request: {
          PutRequest: {
            Item: {
              gradeableKey: gradeableKey(course.term, course.course, gradeableId),
              ownerId: userId,
              term: course.term,
              course: course.course,
              gradeableId,
              highestVersion: 1,
              activeVersion: 1,
              versions: [
                {
                  version: 1,
                  submittedAt: past.toISOString(),
                  submittedBy: userId,
                  daysLate: 0,
                  ticket: 1,
                  state: 'graded',
                  points: index % 10,
                },
              ],
            },
          },
        },
      })),
    ];
  });
  await batchWrite(writes, { parallel: 8 });
  return course;
}

/** How long at least one request was in flight (the union of the requests' intervals). */
function busyTime(requests: readonly RecordedRequest[]): number {
  return waves(requests).reduce((total, wave) => total + Math.max(...wave.map((r) => r.end)) - Math.min(...wave.map((r) => r.start)), 0);
}

const describe = (requests: readonly RecordedRequest[]) =>
  `${requests.length} request${requests.length === 1 ? '' : 's'} in ${waves(requests).length} round trip${waves(requests).length === 1 ? '' : 's'}`;

/** The 1,000-row class list import (creating the users, then again: nothing to write). */
export async function measureClassListImport(rows: number): Promise<SectionResult> {
  progress(`scale: class list import, ${rows} rows`);
  const course: Course = { term: 'b26', course: 'bench', displayName: 'Bench', archived: false, timeZone: 'UTC', accessGroup: 'bench' };
  await putTerm({ termId: 'b26', name: 'Bench', startDate: '2026-01-01', endDate: '2026-12-31' });
  await putUser({ userId: 'bench_instructor', givenName: 'B', familyName: 'I', email: 'b@x.edu', accessLevel: 'faculty' });
  await bootstrapCourse(course, 'bench_instructor');
  const csv = [
    'user_id,first_name,last_name,email,registration_section,group',
    ...Array.from({ length: rows }, (_, i) => `s${i},First${i},Last${i},s${i}@example.edu,${(i % 10) + 1},4`),
  ].join('\n');
  const parsed = readClassList(csv);
  let started = performance.now();
  const first = await importClassList(course, parsed, { actor: 'admin' });
  const firstSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const second = await importClassList(course, parsed, { actor: 'admin' });
  const secondSeconds = (performance.now() - started) / 1000;
  const writes = second.created + second.updated + second.dropped + second.new_accounts.length;
  return {
    rows: [
      {
        section: SECTION,
        name: `class list import, ${rows.toLocaleString('en')} new students`,
        target: '< 60 s',
        baseline: '—',
        measured: `${firstSeconds.toFixed(1)} s (${first.new_accounts.length} users created)`,
        met: firstSeconds < 60,
      },
      {
        section: SECTION,
        name: 'class list import again (idempotent)',
        target: 'nothing written',
        baseline: '—',
        measured: `${secondSeconds.toFixed(1)} s, ${writes} writes`,
        met: writes === 0,
      },
    ],
    notes: [],
  };
}
