import type { QueueCounters } from '#shared/data/jobs.ts';

/**
 * How many CodeBuild builds a queue is worth. Each build pays a start-up (about a minute on
 * demand, billed) before its first job and then takes queued jobs one after another; starting a
 * build for every worker wake-up pays that start-up more often than the queue needs. A queue gets
 * as many builds as it takes for each to have about `buildSeconds` of jobs, at least one, at most
 * the concurrency.
 */
export interface BuildDemand {
  /** Jobs queued, not yet taken by any build (the waking worker's own included). */
  readonly queued: number;
  /** Build sessions running now (each feeds one build at a time). */
  readonly running: number;
  /** The most builds that may run at once (`gradingConcurrency`). */
  readonly concurrency: number;
  /** A job's time in a build, as measured lately (test cases plus its own work in the build). */
  readonly jobSeconds: number;
  /** How long a build should run jobs: its share of the queue. */
  readonly buildSeconds: number;
}

/** The builds the queue is worth: enough for each to run about `buildSeconds` of jobs. */
export function buildsWanted(demand: BuildDemand): number {
  if (demand.queued <= 0) return 0;
  const share = Math.ceil((demand.queued * Math.max(0, demand.jobSeconds)) / Math.max(1, demand.buildSeconds));
  return Math.min(Math.max(1, demand.concurrency), Math.max(1, share));
}

/**
 * Whether a waking worker starts another build: only while fewer run than the queue is worth. The
 * running builds take the rest of the queue (each takes the next queued job when it finishes one).
 */
export function startsBuild(demand: BuildDemand): boolean {
  return demand.running < buildsWanted(demand);
}

/** What a build that just began a job knows when it is about to take the next one. */
export interface NextJob {
  /** Seconds since the build was asked for: CodeBuild bills on-demand builds from then, by the started minute. */
  readonly elapsedSeconds: number;
  /** A job's time in a build, as measured lately. */
  readonly jobSeconds: number;
  /** Jobs queued, not taken by any build. */
  readonly queued: number;
  /** Other builds running now, taking queued jobs. */
  readonly others: number;
}

/** Seconds a build runs after its last job's result (reading its end, shutting down). */
const END_SECONDS = 3;

/** Minutes CodeBuild bills for a build of this many seconds: each started minute, at least one. */
export function billedMinutes(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / 60));
}

/**
 * Whether the next job would end in a later billed minute than the job running now: the build's
 * last result then lands just before a minute boundary instead of just after one.
 */
export function crossesBilledMinute(elapsedSeconds: number, jobSeconds: number): boolean {
  if (!(jobSeconds > 0) || !Number.isFinite(jobSeconds)) return false;
  const currentEnd = elapsedSeconds + jobSeconds + END_SECONDS;
  return billedMinutes(currentEnd + jobSeconds) > billedMinutes(currentEnd);
}

/** At most this much of a new billed minute is worth leaving to the other builds instead of paying it. */
const SPILL_SECONDS = 15;

/**
 * Whether a build takes the next queued job. It stops instead when that job would bill it another
 * minute of which it would use at most a quarter: the queue, spread over it and the other running
 * builds, is done by then. Its share goes to the others: after any stop the queue is still done
 * within a quarter of a minute of that build's last billed minute, so stops near the end (builds
 * started together reach their minutes together) cannot draw out a long tail. Without a measured
 * job time, or alone, it goes on.
 */
export function takesNextJob(next: NextJob): boolean {
  if (!crossesBilledMinute(next.elapsedSeconds, next.jobSeconds)) return true;
  // Alone, it goes on; with nothing queued, it finds nothing to take and ends anyway.
  if (next.others <= 0 || next.queued <= 0) return true;
  const currentEnd = next.elapsedSeconds + next.jobSeconds + END_SECONDS;
  const queueDone = currentEnd + (next.queued * next.jobSeconds) / (next.others + 1);
  return queueDone - billedMinutes(currentEnd) * 60 > SPILL_SECONDS;
}

/** The sessions whose time has not run out (a session whose worker died holds its place only until then). */
export function liveSessions(sessions: Readonly<Record<string, number>>, now: number): Record<string, number> {
  return Object.fromEntries(Object.entries(sessions).filter(([, until]) => until > now));
}

/** The estimate of a job's time after one more measured: a moving average, the newest weighing a quarter. */
export function nextJobSeconds(estimate: number | undefined, measured: number): number {
  if (!(measured > 0)) return estimate ?? 0;
  return estimate === undefined ? measured : estimate * 0.75 + measured * 0.25;
}

/** Jobs queued and not taken, every lane's: the tickets on every counter. */
export const queuedJobs = (counters: QueueCounters): number => counters.reduce((sum, counter) => sum + counter.queued.length, 0);
