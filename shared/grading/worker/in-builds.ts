import { config } from '#shared/config.ts';
import { logger } from '#shared/logger.ts';
import type { BuildJob, SandboxLocation } from '../builds/codebuild.ts';
import { jobMeasured, RECORD_MARGIN_MS, takesNext, type Session } from '../builds/sessions.ts';
import type { ClaimedJob } from '#shared/queue/claim.ts';
import type { CodeBuildEngine } from './engines.ts';
import type { LeaseHolds } from './lease-holds.ts';
import { prepareJob, type Prepared } from './prepare.ts';
import { recordCommit, recordRun, type Held, type Outcome } from './record.ts';

/**
 * Grades `first` and then, while half the worker's time is left, the next queued jobs, in as few
 * CodeBuild builds as it can. Each job keeps its own lease, claimed in queue order as it is taken.
 */
export async function gradeInBuilds(
  { engine, sandbox, session }: { engine: CodeBuildEngine; sandbox: SandboxLocation; session: Session },
  { job: first, holds }: Held,
  prepared: Prepared,
): Promise<Outcome> {
  const deadline = first.until - RECORD_MARGIN_MS;
  const claimUntil = Date.now() + (deadline - Date.now()) / 2;
  let outcome: Outcome = 'lost';
  await engine.runJobsInCodeBuild(
    sandbox,
    buildJob({ job: first, holds }, prepared, (result) => (outcome = result)),
    {
      deadline,
      jobsPerBuild: config('GRADING_JOBS_PER_BUILD'),
      next: () => nextBuildJob(holds, claimUntil),
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

/** A held job as a build runs it: its commit recorded at checkout, its outcome when it completes. */
function buildJob(held: Held, prepared: Prepared, told?: (result: Outcome) => void): BuildJob {
  return {
    request: prepared.request,
    onCheckout: (commit) => recordCommit({ ...held, commit, recorded: prepared.recorded }),
    complete: async (run) => {
      const result = await recordRun({ ...held, run, testCases: prepared.testCases, recorded: prepared.recorded, basis: prepared.basis });
      told?.(result);
    },
  };
}

/** The next queued job a build takes, claimed and prepared, until `claimUntil` (ms); undefined when none is left. */
async function nextBuildJob(holds: LeaseHolds, claimUntil: number): Promise<BuildJob | undefined> {
  while (Date.now() < claimUntil) {
    const job: ClaimedJob | undefined = await holds.claim();
    if (!job) return undefined;
    const next = await prepareJob({ job, holds });
    if (!('outcome' in next)) return buildJob({ job, holds }, next);
  }
  return undefined;
}
