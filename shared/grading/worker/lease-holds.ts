import { config } from '#shared/config.ts';
import { renewLease } from '#shared/data/jobs.ts';
import { logger } from '#shared/logger.ts';
import { claimJob, leaseExpiry, type ClaimedJob } from '#shared/queue/claim.ts';

/**
 * The leases one wake-up of a worker holds, each renewed every quarter of
 * GRADING_HEARTBEAT_LEASE_SECONDS until its job is recorded or the wake-up ends: a worker that dies
 * (a crash, running out of memory or time) stops renewing, and its jobs are taken over that long
 * after. A renewal that finds the lease taken stops it, and nothing more of that job is recorded.
 */
export class LeaseHolds {
  private readonly timers = new Map<number, ReturnType<typeof setInterval>>();
  private readonly lost = new Set<number>();

  /** Claims the next job (claimJob) and holds its lease. */
  async claim(now = new Date()): Promise<ClaimedJob | undefined> {
    const job = await claimJob(now);
    if (job) this.hold(job);
    return job;
  }

  hold(job: ClaimedJob): void {
    const every = (config('GRADING_HEARTBEAT_LEASE_SECONDS') * 1000) / 4;
    const timer = setInterval(() => void this.renew(job), every);
    this.timers.set(job.ticket, timer);
  }

  /** Whether the job's lease was found taken: another worker grades it now. */
  isLost(job: ClaimedJob): boolean {
    return this.lost.has(job.ticket);
  }

  /** Stops renewing the job's lease (its outcome is recorded, or the job is left to be taken over). */
  stopRenewing(job: ClaimedJob): void {
    clearInterval(this.timers.get(job.ticket));
    this.timers.delete(job.ticket);
  }

  /** Stops renewing every lease held (the wake-up ends: what is not recorded is left to be taken over). */
  stopRenewingAll(): void {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
  }

  private async renew(job: ClaimedJob): Promise<void> {
    try {
      if (await renewLease(job.ticket, job.lease, leaseExpiry(new Date()))) return;
      if (!this.timers.has(job.ticket)) return; // recorded meanwhile: the job simply ended
      this.lost.add(job.ticket);
      this.stopRenewing(job);
      logger.warn({ message: 'A grading job’s lease was taken over: this worker records nothing of it', ticket: job.ticket });
    } catch (error) {
      // A failed renewal is tried again at the next beat, well before the lease runs out.
      logger.warn({ message: 'A grading job’s lease could not be renewed', ticket: job.ticket, problem: String(error) });
    }
  }
}
