import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Course } from '#shared/courses/course.ts';
import { getItems } from '#shared/data/items.ts';
import { jobRef, LANES, putJob, queueRef, takeTickets, type QueueCounters } from '#shared/data/jobs.ts';
import { resultsRef } from '#shared/data/results.ts';
import { addVersion, gradeableKey, setActiveVersion, submissionRef } from '#shared/data/submissions.ts';
import { createTeam } from '#shared/data/teams.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { REGRADE_CHUNK, regradeStatus, requestRegrade } from '#shared/grading/regrade.ts';
import { anyShard, drawTicket, nextToClaim } from '#shared/queue/tickets.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { addMember, createCourse, createTerm, uniqueCode } from '../support/courses.ts';
import { createUser } from '../support/users.ts';
import { selfHostedVcs } from '../support/gradeables.ts';

/**
 * The regrade's queue mechanics against DynamoDB Local, below HTTP (test/http/regrade.test.ts
 * grades a class over HTTP): chunks of 41 versions per transaction, every ticket with its job,
 * positions exact beside concurrent submissions, and the worker's finish counting each job once
 * without letting an old version's results replace the active ones.
 */
// The bulk tests' owners (`bulk-…`) are not run (a checkout failure at once): those tests are about
// the queue, and a grading run costs about a second; the results test runs real gradings.
vi.mock('#shared/grading/worker/run.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('#shared/grading/worker/run.ts')>();
  return {
    runGrading: (request: Parameters<typeof real.runGrading>[0], job: Parameters<typeof real.runGrading>[1]) =>
      request.repository.url.includes('/bulk-')
        ? Promise.resolve({ status: 'checkout-failed', message: 'Not run (queue test)' })
        : real.runGrading(request, job),
  };
});

// Faults: `failAfter` lets that many transactions of the regrade through, then throws once.
const faults = vi.hoisted(() => ({ failAfter: -1 }));
vi.mock('#shared/data/transactions.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('#shared/data/transactions.ts')>();
  return {
    ...real,
    transactWrite: async (items: Parameters<typeof real.transactWrite>[0]) => {
      if (faults.failAfter === 0) {
        faults.failAfter = -1;
        throw new Error('injected: DynamoDB is unavailable');
      }
      if (faults.failAfter > 0) faults.failAfter--;
      return real.transactWrite(items);
    },
  };
});

let course: Course;
let repositories: string;
const owner = (gradeableId: string, ownerId: string) => ({ term: course.term, course: course.course, gradeableId, ownerId });

beforeAll(async () => {
  vi.stubEnv('GRADING_QUEUE_URL', 'local:none'); // wake-ups go nowhere: the test claims jobs itself
  vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '120'); // the jobs this test claims itself are never renewed
  const instructor = await createUser('faculty', 'instructor');
  course = await createCourse(await createTerm('2026-08-24'), instructor);
  repositories = await mkdtemp(join(tmpdir(), 'regrade-repositories-'));
  vi.stubEnv('FILE_REPOSITORIES_DIR', repositories);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(repositories, { recursive: true, force: true });
});

async function createGradeable(points: number): Promise<GradeableDocument> {
  const id = uniqueCode('hw');
  await uploadGradeable(course, {
    id,
    title: `Homework ${id}`,
    type: 'Electronic File',
    vcs: selfHostedVcs(`file://${repositories}/{$user_id}`),
    autograding: { test_cases: [{ name: 'Runs', command: 'sh run.sh', points_available: points, expect: { exit_code: 0 } }] },
  });
  return (await getItems({ gradeable: gradeableRef(course.term, course.course, id) })).gradeable!;
}

/** A version as a submission makes it (submit.ts): the version, a ticket drawn now on a counter at random and its job, in one transaction. */
async function submit(gradeable: GradeableDocument, ownerId: string): Promise<number> {
  for (;;) {
    const { submission } = await getItems({ submission: submissionRef(course.term, course.course, gradeable.id, ownerId) });
    const shard = anyShard();
    const ticket = drawTicket(LANES.first, shard, Date.now());
    const version = (submission?.highestVersion ?? 0) + 1;
    const who = owner(gradeable.id, ownerId);
    try {
      await transactWrite([
        addVersion(who, { version, submittedAt: new Date().toISOString(), submittedBy: ownerId, daysLate: 0, ticket, state: 'queued' }),
        takeTickets(shard, [ticket]),
        putJob({ ticket, gradeableKey: gradeableKey(course.term, course.course, gradeable.id), ...who, version }),
      ]);
      return ticket;
    } catch (error) {
      if (failedConditions(error).length === 0) throw error;
    }
  }
}

/** The tickets queued between two readings of the queue's counters (none claimed meanwhile), lowest first. */
function issuedBetween(before: QueueCounters, after: QueueCounters): number[] {
  const queuedBefore = new Set(before.flatMap((counter) => counter.queued));
  return after
    .flatMap((counter) => counter.queued)
    .filter((ticket) => !queuedBefore.has(ticket))
    .sort((a, b) => a - b);
}

/** How many jobs the counters show queued. */
const queuedIn = (counters: QueueCounters) => counters.reduce((sum, counter) => sum + counter.queued.length, 0);

async function repository(ownerId: string, exitCode: number) {
  await mkdir(join(repositories, ownerId), { recursive: true });
  await writeFile(join(repositories, ownerId, 'run.sh'), `exit ${exitCode}\n`);
}

async function gradeAll(): Promise<number> {
  let graded = 0;
  while ((await gradeNextJob()) !== 'idle') graded++;
  return graded;
}

const submissionOf = async (gradeable: GradeableDocument, ownerId: string) =>
  (await getItems({ submission: submissionRef(course.term, course.course, gradeable.id, ownerId) })).submission!;

describe('re-queueing', () => {
  it('queues every active version of a class in chunks of 41, each ticket with its job, positions exact', async () => {
    await gradeAll();
    const gradeable = await createGradeable(1);
    const students = Array.from({ length: 2 * REGRADE_CHUNK + 3 }, (_, index) => `bulk-s${String(index).padStart(3, '0')}`);
    // Versions as graded: no repository needed, nothing is run.
    for (const student of students) await submit(gradeable, student);
    expect(await gradeAll()).toBe(students.length);
    // One version queued already (skipped), one submission cancelled (left out).
    await submit(gradeable, students[0]!);
    const cancelled = await submissionOf(gradeable, students[1]!);
    await transactWrite([
      setActiveVersion(
        { gradeableKey: gradeableKey(course.term, course.course, gradeable.id), ownerId: students[1]! },
        { highestVersion: 1, state: 'graded' },
        0,
        undefined,
      ),
    ]);
    expect(cancelled.activeVersion).toBe(1);

    const before = (await getItems({ queue: queueRef() })).queue;
    const started = performance.now();
    const job = await requestRegrade({
      caller: { userId: 'instructor' },
      course,
      gradeableId: gradeable.id,
      gradeable,
    });
    const elapsed = performance.now() - started;
    console.log(`re-queued ${job.queued} versions in ${Math.round(elapsed)} ms`);
    expect(job).toMatchObject({
      gradeable_id: gradeable.id,
      state: 'queued',
      total: students.length - 1,
      queued: students.length - 2,
      skipped: 1,
      graded: 0,
      failed: 0,
      regrade_by: 'instructor',
    });
    const after = (await getItems({ queue: queueRef() })).queue;
    const tickets = issuedBetween(before, after);
    expect(tickets).toHaveLength(job.queued);

    // Every new ticket has its job, marked with the regrade, and the version it names carries that ticket.
    const jobs = await getItems(Object.fromEntries(tickets.map((ticket) => [ticket, jobRef(ticket)])));
    const owners = new Set<string>();
    for (const ticket of tickets) {
      const queued = jobs[ticket]!;
      expect(queued).toMatchObject({ state: 'queued', regradeId: job.regrade_id, version: 1, gradeableId: gradeable.id });
      owners.add(queued.ownerId);
      const submission = await submissionOf(gradeable, queued.ownerId);
      expect(submission.versions[0]).toMatchObject({ state: 'queued', ticket });
    }
    expect(owners.size).toBe(job.queued);
    expect(owners.has(students[0]!) || owners.has(students[1]!)).toBe(false);

    // The regrade's tickets follow the submission queued before it; the status answers with the progress.
    const submitted = (await submissionOf(gradeable, students[0]!)).versions[1]!;
    expect(nextToClaim(before)?.ticket).toBe(submitted.ticket);
    expect(Math.min(...tickets)).toBeGreaterThan(submitted.ticket);
    const graded = await gradeAll();
    expect(graded).toBe(queuedIn(after));
    expect(await regradeStatus(course, job.regrade_id)).toMatchObject({ state: 'done', graded: job.queued, failed: 0 });
  }, 240_000);
});

describe('contention', () => {
  it('keeps the queue exact when submissions take tickets while a regrade queues', async () => {
    await gradeAll();
    const gradeable = await createGradeable(1);
    const students = Array.from({ length: 60 }, (_, index) => `bulk-c${String(index).padStart(3, '0')}`);
    for (const student of students) await submit(gradeable, student);
    await gradeAll();
    const before = (await getItems({ queue: queueRef() })).queue;
    const others = Array.from({ length: 30 }, (_, index) => `bulk-late${index}`);
    const [job, ...submitted] = await Promise.all([
      requestRegrade({ caller: { userId: 'instructor' }, course, gradeableId: gradeable.id, gradeable }),
      ...others.map((student) => submit(gradeable, student)),
    ]);
    expect(job.queued).toBe(60);
    const after = (await getItems({ queue: queueRef() })).queue;
    // Every ticket issued meanwhile, each exactly once, each with its job.
    const tickets = issuedBetween(before, after);
    expect(tickets).toHaveLength(90);
    const jobs = await getItems(Object.fromEntries(tickets.map((ticket) => [ticket, jobRef(ticket)])));
    expect(tickets.filter((ticket) => !jobs[ticket])).toEqual([]);
    expect(tickets.filter((ticket) => jobs[ticket]!.regradeId === job.regrade_id)).toHaveLength(60);
    expect(new Set(submitted as number[]).size).toBe(30);
    expect(await gradeAll()).toBe(90);
    expect(await regradeStatus(course, job.regrade_id)).toMatchObject({ state: 'done', graded: 60 });
  }, 240_000);
});

describe('a failure part way', () => {
  it('keeps every chunk whole, and the regrade counts only what it queued', async () => {
    await gradeAll();
    const gradeable = await createGradeable(1);
    const students = Array.from({ length: REGRADE_CHUNK + 5 }, (_, index) => `bulk-f${String(index).padStart(3, '0')}`);
    for (const student of students) await submit(gradeable, student);
    await gradeAll();
    const before = (await getItems({ queue: queueRef() })).queue;
    faults.failAfter = 1; // the first chunk's transaction, then a failure
    await expect(requestRegrade({ caller: { userId: 'instructor' }, course, gradeableId: gradeable.id, gradeable })).rejects.toThrow(
      'injected',
    );
    const after = (await getItems({ queue: queueRef() })).queue;
    const tickets = issuedBetween(before, after);
    expect(tickets).toHaveLength(REGRADE_CHUNK);
    const jobs = await getItems(Object.fromEntries(tickets.map((ticket) => [ticket, jobRef(ticket)])));
    expect(tickets.filter((ticket) => !jobs[ticket])).toEqual([]);
    const regradeId = jobs[tickets[0]!]!.regradeId!;
    expect(await regradeStatus(course, regradeId)).toMatchObject({ state: 'queued', total: REGRADE_CHUNK, queued: REGRADE_CHUNK });
    // Asked again, the versions queued already are skipped and the rest are queued.
    const again = await requestRegrade({ caller: { userId: 'instructor' }, course, gradeableId: gradeable.id, gradeable });
    expect(again).toMatchObject({ total: students.length, queued: 5, skipped: REGRADE_CHUNK });
    expect(await gradeAll()).toBe(students.length);
    expect(await regradeStatus(course, regradeId)).toMatchObject({ state: 'done', graded: REGRADE_CHUNK });
    expect(await regradeStatus(course, again.regrade_id)).toMatchObject({ state: 'done', graded: 5 });
  }, 120_000);
});

describe('results', () => {
  it("replaces the active version's results, never with an older version's or a superseded one's", async () => {
    await gradeAll();
    const gradeable = await createGradeable(3);
    const key = gradeableKey(course.term, course.course, gradeable.id);
    const [ann, ben] = await Promise.all([createUser('user', 'ann'), createUser('user', 'ben')]);
    await addMember(course, ann, 4, '1');
    await addMember(course, ben, 4, '1');
    await repository(ann.userId, 1);
    await repository(ben.userId, 1);
    await submit(gradeable, ann.userId);
    await submit(gradeable, ann.userId);
    await submit(gradeable, ben.userId);
    await gradeAll();
    expect((await submissionOf(gradeable, ann.userId)).versions.map((version) => version.points)).toEqual([0, 0]);

    // The repositories are fixed. ann's version 1 (not her active one) is regraded: her active results stay.
    await repository(ann.userId, 0);
    await repository(ben.userId, 0);
    const one = await requestRegrade({
      caller: { userId: 'instructor' },
      course,
      gradeableId: gradeable.id,
      gradeable,
      userId: ann.userId,
      version: 1,
    });
    expect(one).toMatchObject({ total: 1, queued: 1, skipped: 0, state: 'queued' });
    expect(await gradeAll()).toBe(1);
    let annNow = await submissionOf(gradeable, ann.userId);
    expect(annNow.versions.map((version) => version.points)).toEqual([3, 0]);
    expect(annNow.activeResults).toMatchObject({ version: 2 });
    expect(annNow.activeResults!.testCases[0]!.points_received).toBe(0);
    expect((await getItems({ results: resultsRef(key, ann.userId, 1) })).results?.points).toBe(3);

    // Every active version: old results stay visible while queued.
    const all = await requestRegrade({ caller: { userId: 'instructor' }, course, gradeableId: gradeable.id, gradeable });
    expect(all).toMatchObject({ total: 2, queued: 2, skipped: 0 });
    const waiting = await submissionOf(gradeable, ben.userId);
    expect(waiting.activeResults?.version).toBe(1);
    expect(waiting.versions[0]).toMatchObject({ state: 'queued', points: 0 });
    // ben submits again before the regrade of his version 1 ends: version 2 stays active with its own results.
    await submit(gradeable, ben.userId);
    expect(await gradeAll()).toBe(3);
    annNow = await submissionOf(gradeable, ann.userId);
    expect(annNow.versions.map((version) => version.points)).toEqual([3, 3]);
    expect(annNow.activeResults).toMatchObject({ version: 2 });
    expect(annNow.activeResults!.testCases[0]!.points_received).toBe(3);
    const benNow = await submissionOf(gradeable, ben.userId);
    expect(benNow.versions.map((version) => [version.state, version.points])).toEqual([
      ['graded', 3],
      ['graded', 3],
    ]);
    expect(benNow.activeVersion).toBe(2);
    expect(benNow.activeResults?.version).toBe(2);
    expect((await getItems({ results: resultsRef(key, ben.userId, 1) })).results?.points).toBe(3);
    expect(await regradeStatus(course, one.regrade_id)).toMatchObject({ state: 'done', graded: 1 });
    expect(await regradeStatus(course, all.regrade_id)).toMatchObject({ state: 'done', graded: 2, failed: 0 });
  }, 120_000);

  it("on team gradeables a member's user_id regrades the team's version", async () => {
    await gradeAll();
    const id = uniqueCode('team');
    await uploadGradeable(course, {
      id,
      title: 'Team homework',
      type: 'Electronic File',
      team_gradeable: { team_size_max: 2, inherit_from: '' },
      vcs: selfHostedVcs(`file://${repositories}/{$team_id}`),
      autograding: { test_cases: [{ name: 'Runs', command: 'sh run.sh', points_available: 1, expect: { exit_code: 0 } }] },
    });
    const gradeable = (await getItems({ gradeable: gradeableRef(course.term, course.course, id) })).gradeable!;
    const [kim, lee, max] = await Promise.all([createUser('user', 'kim'), createUser('user', 'lee'), createUser('user', 'max')]);
    for (const user of [kim, lee, max]) await addMember(course, user, 4, '1');
    expect(await createTeam(course.term, course.course, id, 'bulk-team1', [kim.userId, lee.userId])).toBe(true);
    await submit(gradeable, 'bulk-team1');
    await gradeAll();
    const request = (fields: { userId?: string; version?: number }) =>
      requestRegrade({ caller: { userId: 'instructor' }, course, gradeableId: id, gradeable, ...fields });
    expect(await request({ userId: lee.userId })).toMatchObject({ total: 1, queued: 1 });
    expect((await submissionOf(gradeable, 'bulk-team1')).versions[0]).toMatchObject({ state: 'queued' });
    // Queued already: skipped, and done at once.
    expect(await request({ userId: kim.userId, version: 1 })).toMatchObject({ total: 1, queued: 0, skipped: 1, state: 'done' });
    await expect(request({ userId: max.userId })).rejects.toMatchObject({ message: `${max.userId} is not on a team for this gradeable.` });
    expect(await gradeAll()).toBe(1);
  });

  it('refuses what cannot be regraded, writing nothing', async () => {
    const gradeable = await createGradeable(1);
    const student = await createUser('user', 'nat');
    await addMember(course, student, 4, '1');
    const request = (fields: { userId?: string; version?: number }, document: GradeableDocument | null = gradeable) =>
      requestRegrade({ caller: { userId: 'instructor' }, course, gradeableId: 'nope', gradeable: document ?? undefined, ...fields });
    const before = (await getItems({ queue: queueRef() })).queue;
    await expect(request({}, null)).rejects.toMatchObject({ kind: 'not-found', message: "Invalid gradeable id 'nope'" });
    await expect(request({}, { ...gradeable, type: 'Numeric', vcs: undefined })).rejects.toMatchObject({
      message: 'Regrading only supports Electronic File gradeables: a Numeric gradeable is graded by hand, never automatically.',
    });
    await expect(request({ version: 1 })).rejects.toMatchObject({
      message: 'The field version_to_regrade needs user_id: the student whose version to regrade.',
    });
    await expect(request({ userId: 'ghost-user' })).rejects.toMatchObject({
      kind: 'not-found',
      message: 'User ghost-user is not in this course.',
    });
    await expect(request({ userId: '../../x' })).rejects.toMatchObject({ kind: 'not-found' });
    await expect(request({ userId: student.userId })).rejects.toMatchObject({
      message: `${student.userId} has no submission to regrade.`,
    });
    await submit(gradeable, student.userId);
    await expect(request({ userId: student.userId, version: 2 })).rejects.toMatchObject({
      message: 'There is no version 2: the highest is 1.',
    });
    expect(issuedBetween(before, (await getItems({ queue: queueRef() })).queue)).toHaveLength(1); // the submission's ticket only
    await gradeAll();
  });

  it("a regrade of another course's id, or an unknown one, is not found", async () => {
    await expect(regradeStatus(course, 'rg_AAAAAAAAAAAAAAAAAAAAAA')).rejects.toMatchObject({ kind: 'not-found' });
    await expect(regradeStatus(course, 'queue')).rejects.toMatchObject({ kind: 'not-found' });
    const gradeable = await createGradeable(1);
    const job = await requestRegrade({ caller: { userId: 'instructor' }, course, gradeableId: gradeable.id, gradeable });
    expect(job).toMatchObject({ state: 'done', total: 0 });
    const other = { ...course, course: 'elsewhere' };
    await expect(regradeStatus(other, job.regrade_id)).rejects.toMatchObject({ kind: 'not-found' });
  });
});
