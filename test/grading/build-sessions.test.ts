import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordJobSeconds } from '#shared/data/build-sessions.ts';
import { getItems } from '#shared/data/items.ts';
import { claimTicket, finishJob, leaseJob, putJob, queueRef } from '#shared/data/jobs.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { nextToClaim } from '#shared/queue/tickets.ts';
import { config } from '#shared/config.ts';
import { useLocalQueue } from '#shared/queue/wake-ups.ts';
import { closeSession, openSession, takesNext, type Session } from '#shared/grading/builds/sessions.ts';
import { claimJob } from '#shared/queue/claim.ts';
import { reserveFirstLane } from '../support/queue.ts';

// In AWS a wake-up starts a CodeBuild build only while fewer run than the queue is worth; the
// running builds take the rest. Nothing may be left queued with no build to take it.

const wakeUps: number[] = [];
const savedQueue = process.env.GRADING_QUEUE_URL;
beforeEach(() => {
  process.env.GRADING_QUEUE_URL = 'local:grading-queue';
  useLocalQueue(async (ticket) => void wakeUps.push(ticket));
});
afterEach(() => {
  useLocalQueue(undefined);
  if (savedQueue === undefined) delete process.env.GRADING_QUEUE_URL;
  else process.env.GRADING_QUEUE_URL = savedQueue;
});

describe('build sessions', () => {
  it('a wake-up is declined while the running builds are enough; a build that ends with jobs queued wakes a worker; a dead one holds no place', async () => {
    wakeUps.length = 0;
    for (let job = await claimJob(); job; job = await claimJob());
    // Jobs of a second each: one queued job is worth one build.
    await recordJobSeconds(1);
    await reserveFirstLane();

    const first = await openSession(new Date());
    expect(first).toBeDefined();
    await expect(openSession(new Date())).resolves.toBeUndefined();

    // It ends (its time ran out, or others won the job): the job is still queued, so a worker is woken.
    await closeSession(first!);
    expect(wakeUps).toHaveLength(1);
    const second = await openSession(new Date());
    expect(second).toBeDefined();
    await closeSession(second!);

    // A session whose worker died (its time is over) is not counted.
    const dead: Session | undefined = await openSession(new Date(Date.now() - config('GRADING_LEASE_SECONDS') * 1000));
    expect(dead).toBeDefined();
    const after = await openSession(new Date());
    expect(after).toBeDefined();
    await closeSession(after!);
    await closeSession(dead!);
  });

  it('a job whose worker died (its lease ran out) with nothing else queued gets a build to take it over', async () => {
    for (let job = await claimJob(); job; job = await claimJob());
    await recordJobSeconds(1);
    // A job taken by a worker that died: no longer queued, its lease over.
    const ticket = await reserveFirstLane();
    await transactWrite([putJob({ ticket, gradeableKey: 'g', term: 't', course: 'c', gradeableId: 'g', ownerId: 'o', version: 1 })]);
    const { queue } = await getItems({ queue: queueRef() });
    const next = nextToClaim(queue);
    expect(next?.ticket).toBe(ticket);
    const over = new Date(Date.now() - 1_000).toISOString();
    await transactWrite([
      claimTicket(next!.shard.shard, ticket),
      leaseJob(ticket, { holder: 'dead', expiresAt: over }, { state: 'queued' }),
    ]);

    const session = await openSession(new Date());
    expect(session).toBeDefined();
    // Its build took the job over and ended it.
    const lease = { holder: 'taker', expiresAt: new Date(Date.now() + 60_000).toISOString() };
    await transactWrite([leaseJob(ticket, lease, { holder: 'dead', now: new Date() })]);
    await transactWrite([finishJob(ticket, 'failed', lease.holder)]);
    await closeSession(session!);
  });

  it('a build stops before a new billed minute when the other builds finish the queue, and leaves at once so that they do not all stop', async () => {
    for (let job = await claimJob(); job; job = await claimJob());
    // Jobs of a minute each: two queued jobs are worth two builds.
    await recordJobSeconds(60);
    await reserveFirstLane();
    await reserveFirstLane();
    const first = await openSession(new Date());
    const second = await openSession(new Date());
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    // Measured since: a second a job.
    first!.jobSeconds = 1;
    second!.jobSeconds = 1;

    // Its next job stays in the minute billed already: it takes it.
    await expect(takesNext(first!, 30)).resolves.toBe(true);
    // Its next job would end just after the first minute, and the queue over both builds is done well before half the second: it stops.
    await expect(takesNext(first!, 55.5)).resolves.toBe(false);
    // It left the builds running: the other, now alone, goes on.
    await expect(takesNext(second!, 55.5)).resolves.toBe(true);

    await closeSession(first!);
    await closeSession(second!);
    for (let job = await claimJob(); job; job = await claimJob());
  });
});
