import { handler } from '#functions/course-job-sweeper/handler.ts';
import { COURSE_JOB_SWEEPER_FUNCTION } from '#infra/function-access.ts';
import { startLocalSchedule, type LocalSchedule } from './schedule.ts';

/**
 * How often the local API runs the course job sweeper (AWS's schedule: every SWEEP_RATE_MINUTES).
 * More often than in AWS costs nothing here: a job is resent only once it is older than the grace.
 */
export const LOCAL_COURSE_JOB_SWEEP_MS = 30_000;

/** The schedule of the course job sweeper on the local API (schedule.ts). An interval of 0 runs it only when asked (`run`). */
export const startLocalCourseJobSweep = (intervalMs = LOCAL_COURSE_JOB_SWEEP_MS): LocalSchedule =>
  startLocalSchedule(COURSE_JOB_SWEEPER_FUNCTION, handler, intervalMs);
