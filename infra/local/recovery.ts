import { unfinishedGradebookExports } from '#shared/data/gradebook-exports.ts';
import { getItems } from '#shared/data/items.ts';
import { leasedJobs, queueRef, releaseLease } from '#shared/data/jobs.ts';
import { pendingScoreDeliveries } from '#shared/data/lti-scores.ts';
import { unfinishedSimilarityRuns } from '#shared/data/similarity-runs.ts';
import { unfinishedSummariesJobs } from '#shared/data/summaries.ts';
import { pendingDeliveries } from '#shared/data/webhooks.ts';
import { queuedJobs } from '#shared/grading/builds/policy.ts';
import { scoreAttemptMessage } from '#shared/lti/score-queue.ts';
import { attemptDelaySeconds, attemptMessage } from '#shared/webhooks/deliver.ts';
import type { LocalApi } from './server.ts';

/**
 * The queues of `npm start` live in its process: when it stops (Ctrl-C, a crash, a reboot) their
 * messages are gone, while the jobs and deliveries they were for stay in the data folder. Before
 * the API starts, nothing of this process holds a grading lease yet, so every lease found belongs
 * to the process that stopped: each ends now, and its job is taken over as any job whose worker
 * died (its attempt counted). Returns how many were released.
 */
export async function releaseStrandedLeases(now = new Date()): Promise<number> {
  let released = 0;
  for (const job of await leasedJobs()) {
    if (await releaseLease(job.ticket, job.leaseHolder, now)) released++;
  }
  return released;
}

/**
 * Once the queues run, what they lost is queued again: a wake-up for each job waiting in the queue
 * and each lease released (a local wake-up grades one job), the next attempt of every pending
 * webhook delivery, sent at once when its time is past (a copy of an attempt already made is
 * recognised and skipped by the delivery function), the same of every LTI score delivery left
 * `pending` (a grade claimed and not sent yet, or waiting for its retry), and the message of every
 * summaries job, gradebook export and similarity run not finished (courseJobs). Outbox entries not
 * relayed yet need nothing: they are in the data folder, and the local relay's schedule sends them.
 */
export async function resumeQueues(
  api: LocalApi,
  released: number,
  now = new Date(),
): Promise<{ jobs: number; deliveries: number; ltiScores: number; courseJobs: number }> {
  const { queue } = await getItems({ queue: queueRef() });
  const jobs = queuedJobs(queue) + released;
  for (let wakeUp = 0; wakeUp < jobs; wakeUp++) await api.gradingQueue.send({ ticket: 0 });
  const deliveries = await pendingDeliveries();
  for (const delivery of deliveries) await api.webhookQueue.send(attemptMessage(delivery), attemptDelaySeconds(delivery, now));
  const scores = await pendingScoreDeliveries();
  for (const delivery of scores) {
    const { message, delaySeconds } = scoreAttemptMessage(delivery, now);
    await api.ltiScoreQueue.send(message, delaySeconds);
  }
  return { jobs, deliveries: deliveries.length, ltiScores: scores.length, courseJobs: await resumeCourseJobs(api, now) };
}

/**
 * Summaries jobs, gradebook exports and similarity runs queued or running when the server stopped: each message is
 * sent again, after the lease of the delivery that was running it has run out (the worker takes a
 * running one over only then; it leaves a finished one be).
 */
async function resumeCourseJobs(api: LocalApi, now: Date): Promise<number> {
  const afterLease = (leaseUntil: number | undefined) => Math.max(0, Math.ceil(((leaseUntil ?? 0) - now.getTime()) / 1000) + 1);
  const jobs = await unfinishedSummariesJobs();
  for (const job of jobs)
    await api.summariesQueue.send({ term: job.term, course: job.course, jobId: job.jobId }, afterLease(job.leaseUntil));
  const exports = await unfinishedGradebookExports();
  for (const record of exports) {
    const message = { kind: 'gradebook-export', term: record.term, course: record.course, exportId: record.exportId } as const;
    await api.summariesQueue.send(message, afterLease(record.leaseUntil));
  }
  const runs = await unfinishedSimilarityRuns();
  for (const run of runs) {
    const message = { kind: 'similarity-run', term: run.term, course: run.course, runId: run.runId } as const;
    await api.summariesQueue.send(message, afterLease(run.leaseUntil));
  }
  return jobs.length + exports.length + runs.length;
}
