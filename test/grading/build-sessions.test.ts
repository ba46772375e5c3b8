import { afterEach, describe, expect, it } from 'vitest';
import { recordJobSeconds } from '#shared/data/build-sessions.ts';
import { reserveTicket } from '#shared/data/jobs.ts';
import { config } from '#shared/config.ts';
import { useLocalQueue } from '#shared/grading/queue.ts';
import { claimJob, closeSession, openSession, type Session } from '#shared/grading/worker.ts';

// In AWS a wake-up starts a CodeBuild build only while fewer run than the queue is worth; the
// running builds take the rest. Nothing may be left queued with no build to take it.

const wakeUps: number[] = [];
const savedQueue = process.env.GRADING_QUEUE_URL;
afterEach(() => {
  useLocalQueue(undefined);
  if (savedQueue === undefined) delete process.env.GRADING_QUEUE_URL;
  else process.env.GRADING_QUEUE_URL = savedQueue;
});

describe('build sessions', () => {
  it('a wake-up is declined while the running builds are enough; a build that ends with jobs queued wakes a worker; a dead one holds no place', async () => {
    process.env.GRADING_QUEUE_URL = 'local:grading-queue';
    useLocalQueue(async (ticket) => void wakeUps.push(ticket));
    for (let job = await claimJob(); job; job = await claimJob());
    // Jobs of a second each: one queued job is worth one build.
    await recordJobSeconds(1);
    await reserveTicket(0);

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
});
