import { gradebookExportSweep } from '#shared/gradebook/exports.ts';
import { similarityRunSweep } from '#shared/similarity/sweep.ts';
import { summariesJobSweep } from '#shared/summaries/job.ts';
import { sweepCourseJobs, type SweepReport } from '#shared/summaries/sweep.ts';

/**
 * The course job sweeper, invoked by a schedule in AWS and on an interval by the local API: every
 * summaries job, gradebook export and similarity run a lost message or a dead worker left unfinished is sent again,
 * or failed once tried too often. A run that fails (the queue refusing) leaves the rest to the next.
 */
export const handler = (): Promise<Record<string, SweepReport>> =>
  sweepCourseJobs([summariesJobSweep, gradebookExportSweep, similarityRunSweep]);
