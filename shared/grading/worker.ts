import { randomUUID } from 'node:crypto';
import { config } from '#shared/config.ts';
import { setting } from '#shared/environment.ts';
import { buildSessionsRef, closeBuildSession, openBuildSession, recordJobSeconds } from '#shared/data/build-sessions.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { getItems } from '#shared/data/items.ts';
import {
  advanceHead,
  expiredLease,
  finishJob,
  jobRef,
  recordJobCommit,
  leaseJob,
  queueRef,
  releaseLoad,
  renewLease,
  voidTicket,
  type Job,
} from '#shared/data/jobs.ts';
import { countRegradeOutcome } from '#shared/data/regrades.ts';
import { putResultsItem } from '#shared/data/results.ts';
import { recordVersionCommit, setVersionState, submissionRef, type GradingResults } from '#shared/data/submissions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { repositoryUrl } from '#shared/gradeables/repository.ts';
import { logger } from '#shared/logger.ts';
import { eventOutbox, gradingOutcomeEvent } from '#shared/webhooks/publish.ts';
import { configuredBounds, runTestCases } from './worker/limits.ts';
import { runGrading } from './worker/run.ts';
import type { BuildJob, SandboxLocation } from './builds/codebuild.ts';
import { codeBuildEngine, type CodeBuildEngine } from './worker/engines.ts';
import { defaultRunLimits, type RunRequest, type RunResult, type SandboxMode } from './runner-protocol.ts';
import type { TestCase } from '#shared/gradeables/gradeable.ts';
import { nextToClaim } from './queue-order.ts';
import { notifyWorkers } from './queue.ts';
import { crossesBilledMinute, liveSessions, nextJobSeconds, queuedJobs, startsBuild, takesNextJob } from './builds/policy.ts';
import { failedRun, scoreRun } from './worker/score.ts';
import { fitResults } from './worker/fit-results.ts';
import { fileLimits, operatorFileBounds } from '#shared/files/rules.ts';

/** Jobless tickets one claim passes over at most (a bound on one call, not on the queue). */
const MAX_TICKETS_PASSED = 10_000;

/** A job taken this many times without finishing is marked failed. */
export const MAX_ATTEMPTS = 3;

export interface ClaimedJob extends Job {
  /** The claim's holder id, which the job's lease names while this worker holds it. */
  readonly lease: string;
  /** When the job's lease, as claimed, runs out unless renewed (LeaseHolds). */
  readonly leaseExpiresAt: string;
  /** The end of the worker's time for it (GRADING_LEASE_SECONDS after the claim), in ms. */
  readonly until: number;
}

/**
 * Takes one job: first any job whose grading lease ran out (its worker died), else the lowest
 * queued ticket (queue-order.ts). Every step is conditional, so no two workers hold one job.
 */
export async function claimJob(now = new Date()): Promise<ClaimedJob | undefined> {
  // Races lost to other workers count; tickets without a job (reserved by submissions that were
  // refused or went away) do not: a rush can leave many in a row, and the jobs behind them must not
  // wait for another wake-up. Each one passed moves the queue's head on, so the loop ends.
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
    if (job?.state === 'superseded' || job?.state === 'void') {
      // A newer version replaced it while it waited (submit.ts), or another worker voided the ticket
      // and has just moved the head past it: passed, like a ticket given up (the head moves only if
      // it is still here).
      await tryTransaction([advanceHead(next.shard)]);
      passed++;
      continue;
    }
    if (!job) {
      // A ticket reserved by a submission that has not written its job, or never will: void it so the
      // queue moves on (a submission still writing it reserves another).
      await tryTransaction([advanceHead(next.shard), voidTicket(next.ticket)]);
      passed++;
      continue;
    }
    const lease = newLease(now);
    const taken = await tryTransaction([
      advanceHead(next.shard),
      leaseJob(job.ticket, lease, { state: 'queued' }),
      setVersionState({ gradeableKey: job.gradeableKey, ownerId: job.ownerId }, job.version, { state: 'grading' }),
    ]);
    if (taken) return claimed(job, lease, now);
    racesLost++;
  }
  return undefined;
}

type Outcome = 'idle' | 'graded' | 'failed' | 'lost';

/** Time the worker keeps, after the sandbox's deadline and before its lease runs out, to record the outcome. */
const RECORD_MARGIN_MS = 90_000;

/**
 * One wake-up of a worker: grade the oldest job, if there is one. In AWS the worker then goes on
 * with further queued jobs in the same CodeBuild builds while half its time is left
 * (runJobsInCodeBuild), so a rush pays a build's start-up once per build, not once per job.
 */
export async function gradeNextJob(now = new Date()): Promise<Outcome> {
  if (!setting('GRADING_PROJECT')) {
    return gradeHeldJob(now, async (job, prepared, holds) => {
      const run = await runGrading(prepared.request, job, { onCheckout: (commit) => recordCommit(job, commit, prepared.recorded, holds) });
      return recordRun(job, prepared, run, holds);
    });
  }
  // In CodeBuild: a build only while fewer run than the queue is worth; the running ones take the rest.
  const session = await openSession(now);
  if (!session) return 'idle';
  try {
    return await gradeHeldJob(now, async (job, prepared, holds) => {
      const engine = await codeBuildEngine();
      const sandbox = engine.codeBuildSandbox();
      if (!sandbox) throw new Error('GRADING_PROJECT is set but the grading sandbox is not');
      return gradeInBuilds(engine, sandbox, job, prepared, session, holds);
    });
  } finally {
    await closeSession(session);
  }
}

/** Claims the next job and prepares it, holding its lease until `grade` is done with it (and any job it claims after). */
async function gradeHeldJob(
  now: Date,
  grade: (job: ClaimedJob, prepared: Prepared, holds: LeaseHolds) => Promise<Outcome>,
): Promise<Outcome> {
  const holds = new LeaseHolds();
  try {
    const job = await holds.claim(now);
    if (!job) return 'idle';
    const prepared = await prepareJob(job, holds);
    if ('outcome' in prepared) return prepared.outcome;
    return await grade(job, prepared, holds);
  } finally {
    holds.stopRenewingAll();
  }
}

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
 * A place among the build sessions running, when the queue is worth another build (build-policy.ts);
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
async function jobMeasured(session: Session, seconds: number): Promise<void> {
  session.jobSeconds = nextJobSeconds(session.measured === 0 ? undefined : session.jobSeconds, seconds);
  session.measured++;
  if (Date.now() - session.lookedAt < 10_000) return;
  session.lookedAt = Date.now();
  await recordJobSeconds(session.jobSeconds);
  const { live, queued } = await demandNow(Date.now());
  if (startsBuild(buildDemand(live, queued, session.jobSeconds))) await notifyWorkers(0);
}

/**
 * Whether the session's build takes one more job (build-policy.ts). The queue is read only when
 * that job would bill the build another minute. A build that stops leaves the sessions running at
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

interface Prepared {
  readonly request: RunRequest;
  readonly testCases: readonly TestCase[];
  /** The commit the version's first grading checked out, if any. */
  readonly recorded: string | undefined;
}

/** What the job's grading needs, or its outcome when it is not to be run (failed too often, no repository). */
async function prepareJob(job: ClaimedJob, holds: LeaseHolds): Promise<Prepared | { outcome: Outcome }> {
  if (job.attempts > MAX_ATTEMPTS) {
    const message = `Grading failed ${MAX_ATTEMPTS} times; your instructor has been told. Submitting again starts over.`;
    logger.error({ message: 'Grading job failed for good', ticket: job.ticket, gradeableKey: job.gradeableKey });
    return { outcome: (await finish(job, holds, 'failed', failedRun(job.version, message), 0, message)) ? 'failed' : 'lost' };
  }
  const { gradeable } = await getItems({ gradeable: gradeableRef(job.term, job.course, job.gradeableId) });
  // The commit the version's first grading checked out, which its job carries (a regrade copies it
  // from the version; a retry after a lost lease finds it where the first attempt recorded it):
  // every later grading grades exactly it, never what the student pushed since.
  const recorded = job.commit;
  // A gradeable without version control grades its versions' stored files, exactly as a checkout.
  const files = gradeable?.type === 'Electronic File' && !gradeable.vcs ? await versionObjects(job) : undefined;
  if (files?.length === 0) {
    const message = "This version's files are no longer stored.";
    return { outcome: (await finish(job, holds, 'failed', failedRun(job.version, message), 0, message)) ? 'failed' : 'lost' };
  }
  if (!gradeable || (!gradeable.vcs && !files)) {
    const message = 'This gradeable no longer takes repository submissions.';
    return { outcome: (await finish(job, holds, 'failed', failedRun(job.version, message), 0, message)) ? 'failed' : 'lost' };
  }
  const testCases = gradeable.autograding?.test_cases ?? [];
  const fileBounds = files ? fileLimits(gradeable.submission_limits, operatorFileBounds()) : undefined;
  const request: RunRequest = {
    jobId: String(job.ticket),
    repository: gradeable.vcs
      ? {
          url: repositoryUrl(gradeable.vcs, { term: job.term, course: job.course, gradeableId: job.gradeableId, ownerId: job.ownerId }),
          subdirectory: gradeable.vcs.vcs_subdirectory,
        }
      : { url: '', subdirectory: '' },
    ...(files ? { files } : {}),
    testCases: runTestCases(testCases, gradeable.autograding?.limits, operatorBounds()),
    limits: fileBounds
      ? { ...defaultRunLimits, maxRepositoryBytes: fileBounds.maxBytes, maxRepositoryFiles: fileBounds.maxFiles }
      : defaultRunLimits,
    allowedHosts: allowedGitHosts(),
    sandbox: sandboxFor(job),
    ...(gradeable.autograding?.image ? { image: gradeable.autograding.image } : {}),
    ...(recorded ? { commit: recorded } : {}),
  };
  return { request, testCases, recorded };
}

/**
 * Grades `first` and then, while half the worker's time is left, the next queued jobs, in as few
 * CodeBuild builds as it can. Each job keeps its own lease, claimed in queue order as it is taken.
 */
async function gradeInBuilds(
  engine: CodeBuildEngine,
  sandbox: SandboxLocation,
  first: ClaimedJob,
  prepared: Prepared,
  session: Session,
  holds: LeaseHolds,
): Promise<Outcome> {
  const deadline = first.until - RECORD_MARGIN_MS;
  const claimUntil = Date.now() + (deadline - Date.now()) / 2;
  let outcome: Outcome = 'lost';
  const buildJob = (job: ClaimedJob, jobPrepared: Prepared, told?: (result: Outcome) => void): BuildJob => ({
    request: jobPrepared.request,
    onCheckout: (commit) => recordCommit(job, commit, jobPrepared.recorded, holds),
    complete: async (run) => {
      const result = await recordRun(job, jobPrepared, run, holds);
      told?.(result);
    },
  });
  await engine.runJobsInCodeBuild(
    sandbox,
    buildJob(first, prepared, (result) => (outcome = result)),
    {
      deadline,
      jobsPerBuild: config('GRADING_JOBS_PER_BUILD'),
      next: async () => {
        while (Date.now() < claimUntil) {
          const job = await holds.claim();
          if (!job) return undefined;
          const next = await prepareJob(job, holds);
          if (!('outcome' in next)) return buildJob(job, next);
        }
        return undefined;
      },
      onDropped: (error) =>
        logger.error({ message: 'A grading job was dropped; it is retried once its lease runs out', problem: String(error) }),
      takesNext: (elapsedSeconds) =>
        takesNext(session, elapsedSeconds).catch((error: unknown) => {
          logger.warn({ message: 'The grading queue’s demand for builds could not be looked at', problem: String(error) });
          return true;
        }),
      onJobSeconds: (seconds) =>
        jobMeasured(session, seconds).catch((error: unknown) =>
          logger.warn({ message: 'The grading queue’s demand for builds could not be looked at', problem: String(error) }),
        ),
    },
  );
  return outcome;
}

/** Records what grading the job gave. */
async function recordRun(job: ClaimedJob, prepared: Prepared, run: RunResult, holds: LeaseHolds): Promise<Outcome> {
  const { testCases, recorded } = prepared;
  if (run.status === 'commit-unreachable') {
    // Never graded on newer files instead: this version fails, the owner's other versions keep theirs.
    logger.warn({
      message: "A version's commit is no longer in its repository",
      ticket: job.ticket,
      gradeableKey: job.gradeableKey,
      commit: recorded,
    });
    return (await finish(job, holds, 'failed', failedRun(job.version, run.message), 0, run.message, [], recorded)) ? 'failed' : 'lost';
  }
  if (run.status === 'sandbox-unavailable' || run.status === 'sandbox-failed') {
    logger.error({ message: 'Grading sandbox unavailable: job not graded', ticket: job.ticket, status: run.status, problem: run.message });
    return (await finish(job, holds, 'failed', failedRun(job.version, run.message), 0, run.message)) ? 'failed' : 'lost';
  }
  const results = fitResults(scoreRun(job.version, testCases, run));
  // The full results are written with the job's end, so a worker that fails (or lost its lease) leaves none.
  const full = putResultsItem(job.gradeableKey, job.ownerId, {
    version: job.version,
    testCases: results.testCases,
    points: results.visiblePoints,
  });
  const commit = run.status === 'graded' ? run.commit : recorded;
  return (await finish(job, holds, 'graded', results, results.visiblePoints, undefined, [full], commit)) ? 'graded' : 'lost';
}

/** How long the sandbox's links to a version's files last: it reads them as it starts. */
const FILE_LINK_SECONDS = 15 * 60;

/**
 * A files version's stored files, each with a presigned GET for the runner (which holds no
 * credentials): those under the files id its version records, never another submission's.
 */
async function versionObjects(job: ClaimedJob): Promise<{ name: string; url: string }[]> {
  const [{ listObjects, presignDownload }, { versionFilesPrefix, fileNameOf }] = await Promise.all([
    import('#shared/storage/objects.ts'),
    import('#shared/storage/keys.ts'),
  ]);
  const { submission } = await getItems({ submission: submissionRef(job.term, job.course, job.gradeableId, job.ownerId) });
  const filesId = submission?.versions.find((entry) => entry.version === job.version)?.files;
  if (filesId === undefined) return [];
  const folder = { term: job.term, course: job.course, gradeable: job.gradeableId, submitter: job.ownerId };
  const objects = await listObjects(versionFilesPrefix(folder, filesId));
  return Promise.all(
    objects.map(async ({ key }) => ({
      name: fileNameOf(key),
      url: await presignDownload(key, { expiresSeconds: FILE_LINK_SECONDS, fileName: fileNameOf(key) }),
    })),
  );
}

/**
 * Records the commit the checkout resolved on the job and the version, before anything runs,
 * provided this worker still holds the job. Throws (stopping the run; the job is retried) when it
 * lost the lease or the version records another commit: the files would not be the version's.
 */
async function recordCommit(job: ClaimedJob, commit: string, recorded: string | undefined, holds: LeaseHolds): Promise<void> {
  if (holds.isLost(job)) throw new Error(`Job ${job.ticket} lost its lease before its commit was recorded`);
  if (commit === recorded) return;
  const key = { gradeableKey: job.gradeableKey, ownerId: job.ownerId };
  try {
    await transactWrite([recordJobCommit(job.ticket, job.lease, commit), recordVersionCommit(key, job.version, commit)]);
  } catch (error) {
    const failed = failedConditions(error);
    if (failed.includes(0)) throw new Error(`Job ${job.ticket} lost its lease before its commit was recorded`, { cause: error });
    if (failed.includes(1))
      throw new Error(`Job ${job.ticket}: version ${job.version} records another commit than ${commit}`, { cause: error });
    throw error;
  }
}

/**
 * Records the outcome, provided this worker still holds the lease; the active version's results
 * go onto the submission item too, so `values` stays one read.
 */
async function finish(
  job: ClaimedJob,
  holds: LeaseHolds,
  state: 'graded' | 'failed',
  results: GradingResults,
  points: number,
  message?: string,
  also: Parameters<typeof transactWrite>[0] = [],
  commit?: string,
): Promise<boolean> {
  const key = { gradeableKey: job.gradeableKey, ownerId: job.ownerId };
  const update = { state, points, ...(message ? { message } : {}) };
  // A regrade's job counts towards its progress in the same write, so each job is counted once; a
  // student's own submission stops counting towards their jobs queued or being graded.
  const progress = [
    ...(job.regradeId ? [countRegradeOutcome(job.regradeId, state)] : []),
    ...(job.countedFor ? [releaseLoad(job.countedFor)] : []),
  ];
  // The webhook event is recorded with the outcome itself (the outbox), so it exists exactly when the outcome does.
  const outbox = eventOutbox(gradingOutcomeEvent(job, state, { points, message, commit }));
  if (holds.isLost(job)) return false;
  // Whatever is recorded, the lease needs no renewing any more (a renewal after the end is refused).
  holds.stopRenewing(job);
  for (const activeResults of [results, undefined]) {
    try {
      await transactWrite([
        finishJob(job.ticket, state, job.lease),
        setVersionState(key, job.version, { ...update, activeResults }),
        ...also,
        ...progress,
        ...outbox.items,
      ]);
      await outbox.send();
      return true;
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.includes(0)) return false; // the lease ran out and another worker took the job
      if (!failed.includes(1)) throw error; // not the active version any more: record it without results
    }
  }
  return false;
}

/** A lease's expiry from `now`: GRADING_HEARTBEAT_LEASE_SECONDS on, which its holder's renewals move on. */
const leaseExpiry = (now: Date): string => new Date(now.getTime() + config('GRADING_HEARTBEAT_LEASE_SECONDS') * 1000).toISOString();

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
});

/** `GRADING_SANDBOX`, read for every job so that running without a sandbox is logged with every job. */
function sandboxFor(job: ClaimedJob): SandboxMode {
  const { mode, problem } = config('GRADING_SANDBOX');
  if (problem) logger.error({ message: problem, ticket: job.ticket });
  if (mode === 'unsafe-none') {
    logger.warn({
      message: 'GRADING_SANDBOX=unsafe-none: this job runs student code WITHOUT a sandbox (development only)',
      ticket: job.ticket,
      gradeableKey: job.gradeableKey,
    });
  }
  return mode;
}

/** The operator's `GRADING_MAX_*` bounds on the limits gradeables may ask for. */
function operatorBounds() {
  const { bounds, problems } = configuredBounds();
  for (const problem of problems) logger.error({ message: problem });
  return bounds;
}

/** `ALLOWED_GIT_HOSTS`: hosts that may be fetched although they resolve to private addresses. */
export const allowedGitHosts = (): string[] => config('ALLOWED_GIT_HOSTS');

async function tryTransaction(items: Parameters<typeof transactWrite>[0]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (failedConditions(error).length > 0) return false;
    throw error;
  }
}
