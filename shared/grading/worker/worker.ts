import { setting } from '#shared/environment.ts';
import { closeSession, openSession } from '../builds/sessions.ts';
import type { ClaimedJob } from '#shared/queue/claim.ts';
import { codeBuildEngine } from './engines.ts';
import { gradeInBuilds } from './in-builds.ts';
import { LeaseHolds } from './lease-holds.ts';
import { prepareJob, type Prepared } from './prepare.ts';
import { recordCommit, recordRun, type Held, type Outcome } from './record.ts';
import { runGrading } from './run.ts';

/**
 * One wake-up of a worker: grade the oldest job, if there is one. In AWS the worker then goes on
 * with further queued jobs in the same CodeBuild builds while half its time is left
 * (gradeInBuilds), so a rush pays a build's start-up once per build, not once per job.
 */
export async function gradeNextJob(now = new Date()): Promise<Outcome> {
  if (!setting('GRADING_PROJECT')) return gradeHeldJob(now, gradeLocally);
  // In CodeBuild: a build only while fewer run than the queue is worth; the running ones take the rest.
  const session = await openSession(now);
  if (!session) return 'idle';
  try {
    return await gradeHeldJob(now, async (held, prepared) => {
      const engine = await codeBuildEngine();
      const sandbox = engine.codeBuildSandbox();
      if (!sandbox) throw new Error('GRADING_PROJECT is set but the grading sandbox is not');
      return gradeInBuilds({ engine, sandbox, session }, held, prepared);
    });
  } finally {
    await closeSession(session);
  }
}

/** Claims the next job and prepares it, holding its lease until `grade` is done with it (and any job it claims after). */
async function gradeHeldJob(now: Date, grade: (held: Held, prepared: Prepared) => Promise<Outcome>): Promise<Outcome> {
  const holds = new LeaseHolds();
  try {
    const job: ClaimedJob | undefined = await holds.claim(now);
    if (!job) return 'idle';
    const prepared = await prepareJob({ job, holds });
    if ('outcome' in prepared) return prepared.outcome;
    return await grade({ job, holds }, prepared);
  } finally {
    holds.stopRenewingAll();
  }
}

/** Grades the job in the local sandbox (no GRADING_PROJECT): a process of its own, in bubblewrap. */
async function gradeLocally(held: Held, { request, testCases, recorded, basis }: Prepared): Promise<Outcome> {
  const run = await runGrading(request, held.job, { onCheckout: (commit) => recordCommit({ ...held, commit, recorded }) });
  return recordRun({ ...held, run, testCases, recorded, basis });
}
