/** The deployed day's steps of `summaries-job` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, failures, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the summaries job's state, until it is done",
    phase: 'summaries done',
    timeoutMs: 90_000,
    run: async () => {
      const job = handedOn.summaries;
      const deadline = Date.now() + 60_000;
      let state = job?.state;
      while (job?.job_id && failures.length === 0) {
        const status = await call('GET', `/api/${TERM}/${COURSE}/reports/summaries/jobs/${job.job_id}`, { as: 'prof' });
        state = status.json?.data?.state;
        if (state === 'done' || state === 'failed' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      if (job?.job_id && state !== 'done') fail('summaries job', `not done in time (${state ?? 'no state'})`);
    },
  },
];
