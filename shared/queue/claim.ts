/**
 * A worker's claim of a job: the job whose grading lease ran out first, else the lowest queued
 * ticket, passing over tickets that have no job; every step conditional, so no two workers hold one
 * job. The claim's lease names its holder and lasts GRADING_HEARTBEAT_LEASE_SECONDS unless renewed.
 */
import { randomUUID } from 'node:crypto';
import { config } from '#shared/config.ts';
import { getItems } from '#shared/data/items.ts';
import { claimTicket, expiredLease, jobRef, leaseJob, queueRef, voidTicket, type Job } from '#shared/data/jobs.ts';
import { setVersionState } from '#shared/data/submissions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { nextToClaim } from './tickets.ts';

/** Jobless tickets one claim passes over at most (a bound on one call, not on the queue). */
const MAX_TICKETS_PASSED = 10_000;

export interface ClaimedJob extends Job {
  /** The claim's holder id, which the job's lease names while this worker holds it. */
  readonly lease: string;
  /** When the job's lease, as claimed, runs out unless renewed (LeaseHolds). */
  readonly leaseExpiresAt: string;
  /** The end of the worker's time for it (GRADING_LEASE_SECONDS after the claim), in ms. */
  readonly until: number;
  /** When this worker claimed it (ms since the epoch): its grading's start, which its recorded time counts from. */
  readonly claimedAt: number;
}

/**
 * Takes one job: first any job whose grading lease ran out (its worker died), else the lowest
 * queued ticket (tickets.ts). Every step is conditional, so no two workers hold one job.
 */
export async function claimJob(now = new Date()): Promise<ClaimedJob | undefined> {
  // Races lost to other workers count; tickets without a job (reserved by submissions that were
  // refused or went away) do not: a rush can leave many in a row, and the jobs behind them must not
  // wait for another wake-up. Each one passed is taken off the queue, so the loop ends.
  let racesLost = 0;
  let passed = 0;
  while (racesLost < 20 && passed < MAX_TICKETS_PASSED) {
    const expired = await expiredLease(now);
    if (expired) {
      const lease = newLease(now);
      if (await tryTransaction([leaseJob(expired.ticket, lease, { holder: expired.leaseHolder, now })])) {
        return claimed(expired, lease, now);
      }
      racesLost++;
      continue;
    }
    const { queue } = await getItems({ queue: queueRef() });
    const next = nextToClaim(queue);
    if (!next) return undefined;
    const { job } = await getItems({ job: jobRef(next.ticket) });
    if (job !== undefined && job.state !== 'queued') {
      // Its ticket is still queued though the job is not (a job written before tickets were taken
      // off the queue with it): passed, like a ticket given up.
      await tryTransaction([claimTicket(next.shard.shard, next.ticket)]);
      passed++;
      continue;
    }
    if (!job) {
      // A ticket reserved by a submission that has not written its job, or never will: void it so the
      // queue moves on (a submission still writing it reserves another).
      await tryTransaction([claimTicket(next.shard.shard, next.ticket), voidTicket(next.ticket)]);
      passed++;
      continue;
    }
    const lease = newLease(now);
    const taken = await tryTransaction([
      claimTicket(next.shard.shard, next.ticket),
      leaseJob(job.ticket, lease, { state: 'queued' }),
      setVersionState({ gradeableKey: job.gradeableKey, ownerId: job.ownerId }, job.version, { state: 'grading' }),
    ]);
    if (taken) return claimed(job, lease, now);
    racesLost++;
  }
  return undefined;
}

/** A lease's expiry from `now`: GRADING_HEARTBEAT_LEASE_SECONDS on, which its holder's renewals move on. */
export const leaseExpiry = (now: Date): string => new Date(now.getTime() + config('GRADING_HEARTBEAT_LEASE_SECONDS') * 1000).toISOString();

/** A new claim's lease: a holder id of its own, which no other claim has. */
const newLease = (now: Date) => ({ holder: randomUUID(), expiresAt: leaseExpiry(now) });

/** The job as claimed, with its lease and the worker's time for it (GRADING_LEASE_SECONDS). */
const claimed = (job: Job, lease: { holder: string; expiresAt: string }, now: Date): ClaimedJob => ({
  ...job,
  state: 'grading',
  attempts: job.attempts + 1,
  lease: lease.holder,
  leaseHolder: lease.holder,
  leaseExpiresAt: lease.expiresAt,
  until: now.getTime() + config('GRADING_LEASE_SECONDS') * 1000,
  claimedAt: Date.now(),
});

async function tryTransaction(items: Parameters<typeof transactWrite>[0]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (failedConditions(error).length > 0) return false;
    throw error;
  }
}
