import { randomUUID } from 'node:crypto';
import { config } from '#shared/config.ts';
import { buildSessionsRef, closeBuildSession, openBuildSession, recordJobSeconds } from '#shared/data/build-sessions.ts';
import { getItems } from '#shared/data/items.ts';
import { expiredLease, queueRef } from '#shared/data/jobs.ts';
import { notifyWorkers } from '#shared/queue/wake-ups.ts';
import { crossesBilledMinute, liveSessions, nextJobSeconds, queuedJobs, startsBuild, takesNextJob } from './policy.ts';

/**
 * A build session: one worker's place among the CodeBuild builds running, held while it feeds its
 * builds jobs. The sessions running, the queue's depth and a job's measured time decide, through
 * the build policy (policy.ts), whether a waking worker starts a build and whether a build takes
 * one more job.
 */

/** Time the worker keeps, after its builds' deadline and before its lease runs out, to record the outcome. */
export const RECORD_MARGIN_MS = 90_000;
/** How long a build should run jobs: with a start-up of about a minute, that is at most a third of what it bills. */
const BUILD_SECONDS = 100;
/** Tries to open a session (others opened or closed one meanwhile) before the worker gives up its wake-up. */
const SESSION_TRIES = 10;

export interface Session {
  readonly id: string;
  readonly until: number;
  /** A job's time in a build: the deployment's last estimate, then what this session measures. */
  jobSeconds: number | undefined;
  /** Jobs this session measured. */
  measured: number;
  /** When it last looked whether the queue is worth more builds. */
  lookedAt: number;
}

/**
 * The queue's depth and the sessions running, read together. A job whose lease ran out (its
 * worker died) counts as queued: a build takes it over before any queued job (claimJob).
 */
async function demandNow(now: number) {
  const { queue, builds } = await getItems({ queue: queueRef(), builds: buildSessionsRef() });
  const read = builds ?? { sessions: {}, version: 0 };
  const live = liveSessions(read.sessions, now);
  const queued = queuedJobs(queue);
  return { read, live, queued: queued > 0 ? queued : (await expiredLease(new Date(now))) ? 1 : 0 };
}

/** What the build policy weighs: the queue, the builds running and a job's time in a build. */
const buildDemand = (live: Readonly<Record<string, unknown>>, queued: number, jobSeconds: number) => ({
  queued,
  running: Object.keys(live).length,
  // The queue's event source runs at most `gradingConcurrency` workers: no cap needed here.
  concurrency: Number.POSITIVE_INFINITY,
  jobSeconds,
  buildSeconds: BUILD_SECONDS,
});

/** The job time a session leaves behind for the next: only what it measured itself. */
const measuredJobSeconds = (session: Session): number | undefined => (session.measured > 0 ? session.jobSeconds : undefined);

/**
 * A place among the build sessions running, when the queue is worth another build (policy.ts);
 * undefined when the running builds are enough. Without a measured job time, every wake-up gets one
 * (up to the concurrency).
 */
export async function openSession(now: Date): Promise<Session | undefined> {
  const until = now.getTime() + config('GRADING_LEASE_SECONDS') * 1000 - RECORD_MARGIN_MS;
  for (let tries = 0; tries < SESSION_TRIES; tries++) {
    const { read, live, queued } = await demandNow(Date.now());
    const jobSeconds = read.jobSeconds;
    if (!startsBuild(buildDemand(live, queued, jobSeconds ?? Infinity))) return undefined;
    const id = randomUUID();
    if (await openBuildSession(read, live, id, until)) return { id, until, jobSeconds, measured: 0, lookedAt: Date.now() };
  }
  return undefined;
}

/**
 * Leaves the sessions running, then looks at the queue: jobs still queued (this worker's time ran
 * out, or other workers won the races for them) get a wake-up, so that a worker decides again. A
 * worker declines a wake-up only while a session runs, and every session looks after it closed:
 * no job is left queued with no build to take it.
 */
export async function closeSession(session: Session): Promise<void> {
  await closeBuildSession(session.id, measuredJobSeconds(session));
  const { queued } = await demandNow(Date.now());
  if (queued > 0) await notifyWorkers(0);
}

/**
 * A job measured by a session: the estimate moves, and, at most every 10 s, the queue is looked
 * at: when it is worth more builds than run, a wake-up lets a worker start one.
 */
export async function jobMeasured(session: Session, seconds: number): Promise<void> {
  session.jobSeconds = nextJobSeconds(session.measured === 0 ? undefined : session.jobSeconds, seconds);
  session.measured++;
  if (Date.now() - session.lookedAt < 10_000) return;
  session.lookedAt = Date.now();
  await recordJobSeconds(session.jobSeconds);
  const { live, queued } = await demandNow(Date.now());
  if (startsBuild(buildDemand(live, queued, session.jobSeconds))) await notifyWorkers(0);
}

/**
 * Whether the session's build takes one more job (policy.ts). The queue is read only when that
 * job would bill the build another minute. A build that stops leaves the sessions running at
 * once, so that the builds deciding next count it out and do not all stop together.
 */
export async function takesNext(session: Session, elapsedSeconds: number): Promise<boolean> {
  const jobSeconds = session.jobSeconds;
  if (jobSeconds === undefined || !crossesBilledMinute(elapsedSeconds, jobSeconds)) return true;
  const { live, queued } = await demandNow(Date.now());
  const others = Object.keys(live).filter((id) => id !== session.id).length;
  if (takesNextJob({ elapsedSeconds, jobSeconds, queued, others })) return true;
  await closeBuildSession(session.id, measuredJobSeconds(session));
  return false;
}
