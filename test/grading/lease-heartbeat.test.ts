import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { finishJob, jobRef, leaseJob, putJob, recordJobCommit, renewLease } from '#shared/data/jobs.ts';
import { getItems } from '#shared/data/items.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { LeaseHolds } from '#shared/grading/worker/lease-holds.ts';
import { claimJob, type ClaimedJob } from '#shared/queue/claim.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { putGradedSubmission } from '../support/submissions.ts';
import { reserveFirstLane } from '../support/queue.ts';

const LEASE_SECONDS = 2;

/** Every job queued or leased before, claimed and ended, so that none of them is taken over later. */
async function drain(): Promise<void> {
  for (let job = await claimJob(); job; job = await claimJob()) await transactWrite([finishJob(job.ticket, 'failed', job.lease)]);
}

/** A job grading version 1 of a submission that has it. */
async function queueJob(): Promise<number> {
  await putGradedSubmission({ term: 't', course: 'c', gradeableId: 'lease', userId: 'o', points: 0 });
  const ticket = await reserveFirstLane();
  const job = {
    ticket,
    gradeableKey: gradeableKey('t', 'c', 'lease'),
    term: 't',
    course: 'c',
    gradeableId: 'lease',
    ownerId: 'o',
    version: 1,
  };
  await transactWrite([putJob(job)]);
  return ticket;
}

const until = (time: string) => new Promise((resolve) => setTimeout(resolve, Date.parse(time) - Date.now() + 50));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jobNow = async (ticket: number) => (await getItems({ job: jobRef(ticket) })).job!;

/** Whether a write of the grading was refused for the lease it names. */
async function refused(write: Parameters<typeof transactWrite>[0]): Promise<boolean> {
  try {
    await transactWrite(write);
    return false;
  } catch (error) {
    return failedConditions(error).includes(0);
  }
}

beforeEach(async () => {
  vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', String(LEASE_SECONDS));
  await drain();
});
afterEach(() => vi.unstubAllEnvs());

describe('a grading lease renewed by its worker', () => {
  it('of a worker that died is taken over once it runs out, graded once, and the dead worker’s records are refused', async () => {
    const ticket = await queueJob();
    const dead = await claimJob(); // it claims the job and dies: no renewal ever comes
    expect(dead?.ticket).toBe(ticket);
    await expect(claimJob()).resolves.toBeUndefined(); // the lease still holds

    await until(dead!.leaseExpiresAt);
    const holds = new LeaseHolds();
    try {
      const taker = await holds.claim();
      expect(taker).toMatchObject({ ticket, attempts: 2 });
      // The dead worker's late writes: its commit and its outcome are refused, its renewal too.
      expect(await refused([recordJobCommit(ticket, dead!.lease, 'c0ffee')])).toBe(true);
      expect(await refused([finishJob(ticket, 'graded', dead!.lease)])).toBe(true);
      await expect(renewLease(ticket, dead!.lease, new Date(Date.now() + 60_000).toISOString())).resolves.toBe(false);
      expect(await jobNow(ticket)).toMatchObject({ state: 'grading', leaseHolder: taker!.lease });

      expect(await refused([finishJob(ticket, 'graded', taker!.lease)])).toBe(false);
      expect(await refused([finishJob(ticket, 'graded', dead!.lease)])).toBe(true);
      expect(await refused([finishJob(ticket, 'graded', taker!.lease)])).toBe(true);
      expect(await jobNow(ticket)).toMatchObject({ state: 'graded', attempts: 2 });
    } finally {
      holds.stopRenewingAll();
    }
  }, 30_000);

  it('of a live worker holds past the lease’s length: no other worker takes its job', async () => {
    const ticket = await queueJob();
    const holds = new LeaseHolds();
    try {
      const live = await holds.claim();
      expect(live?.ticket).toBe(ticket);
      // Other workers keep looking for work for three times the lease's length.
      const end = Date.now() + 3 * LEASE_SECONDS * 1000;
      let looks = 0;
      while (Date.now() < end) {
        await expect(claimJob()).resolves.toBeUndefined();
        looks++;
        await sleep(200);
      }
      expect(looks).toBeGreaterThan(10);
      expect(Date.parse((await jobNow(ticket)).leaseExpiresAt!)).toBeGreaterThan(Date.parse(live!.leaseExpiresAt));
      expect(holds.isLost(live!)).toBe(false);
      expect(await refused([finishJob(ticket, 'graded', live!.lease)])).toBe(false);
      expect(await jobNow(ticket)).toMatchObject({ state: 'graded', attempts: 1 });
    } finally {
      holds.stopRenewingAll();
    }
  }, 30_000);

  it('found taken over stops being renewed, and its worker records nothing more of the job', async () => {
    const ticket = await queueJob();
    const holds = new LeaseHolds();
    let stalled: ClaimedJob | undefined;
    try {
      stalled = await holds.claim();
      // Its renewals stop coming for longer than the lease (a worker stalled), and another worker takes the job over.
      holds.stopRenewing(stalled!);
      await until(stalled!.leaseExpiresAt);
      const taker = await claimJob();
      expect(taker?.ticket).toBe(ticket);
      // It resumes its renewals: the first finds the lease taken.
      holds.hold(stalled!);
      await sleep((LEASE_SECONDS * 1000) / 4 + 500);
      expect(holds.isLost(stalled!)).toBe(true);
      expect(await jobNow(ticket)).toMatchObject({ state: 'grading', leaseHolder: taker!.lease, leaseExpiresAt: taker!.leaseExpiresAt });
      await transactWrite([finishJob(ticket, 'graded', taker!.lease)]);
    } finally {
      holds.stopRenewingAll();
    }
  }, 30_000);

  it('never loses a race between its renewal and a take-over at its expiry: exactly one wins, and the job names the winner', async () => {
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '1');
    const rounds = 20;
    let renewed = 0;
    let takenOver = 0;
    for (let round = 0; round < rounds; round++) {
      const ticket = await queueJob();
      const holder = await claimJob();
      expect(holder?.ticket).toBe(ticket);
      await until(holder!.leaseExpiresAt);
      // The renewal and another worker's take-over of the lease it found run out, sent together.
      const taker = { holder: `taker-${round}`, expiresAt: new Date(Date.now() + 60_000).toISOString() };
      const [renewal, takeOver] = await Promise.all([
        renewLease(ticket, holder!.lease, new Date(Date.now() + 60_000).toISOString()),
        refused([leaseJob(ticket, taker, { holder: holder!.lease, now: new Date() })]).then((lost) => !lost),
      ]);
      expect(renewal).not.toBe(takeOver);
      const [winner, loser] = renewal ? [holder!.lease, taker.holder] : [taker.holder, holder!.lease];
      expect(await jobNow(ticket)).toMatchObject({ state: 'grading', leaseHolder: winner });
      if (renewal) renewed++;
      else takenOver++;
      expect(await refused([finishJob(ticket, 'graded', loser)])).toBe(true);
      await transactWrite([finishJob(ticket, 'graded', winner)]);
      expect(await jobNow(ticket)).toMatchObject({ state: 'graded', attempts: renewal ? 1 : 2 });
    }
    console.log(`renewal against take-over: ${renewed} renewed, ${takenOver} taken over in ${rounds} rounds`);
  }, 120_000);
});
