import { worker } from '#shared/http/routes.ts';

/**
 * What the course job sweeper does (shared/summaries/sweep.ts): reads the unfinished summaries jobs,
 * gradebook exports and similarity runs through their index, sends a stranded one's message to the summaries queue
 * again (counting it on the job), or ends one tried too often as failed.
 */
export const definition = worker({
  name: 'course-job-sweeper',
  summary:
    'Every few minutes: sends again the message of each summaries job, gradebook export or similarity run queued too long or whose lease ran out, and fails one tried too often',
  data: { summaries: ['Query byUnfinished', 'UpdateItem'] },
  summariesQueue: 'send',
});
