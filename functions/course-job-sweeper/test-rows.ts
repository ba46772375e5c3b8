/** What the cross-cutting tests expect of `course-job-sweeper` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  // The unfinished course jobs through their index only (never the summaries), a resend counted or a job failed, its message sent.
  policy: ['dynamodb:Query summaries/index/byUnfinished', 'dynamodb:UpdateItem summaries', 'sqs:SendMessage summariesQueue'],
};
