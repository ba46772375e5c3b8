/** The deployed day's steps of `similarity-runs` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, FILES, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the instructor lists the files gradeable's similarity runs, the one asked for among them; the grader cannot list them",
    phase: 'similarity read',
    run: async () => {
      const runId = handedOn.similarityRun;
      if (!runId) return;
      const path = `/api/${TERM}/${COURSE}/gradeable/${FILES}/similarity`;
      const listed = await call('GET', path, { as: 'prof' });
      const runs = listed.json?.data as { run_id: string; requested_by: string }[] | undefined;
      if (runs && !runs.some((run) => run.run_id === runId)) fail('similarity runs', listed.text.slice(0, 500));
      await call('GET', path, { as: 'ta', expect: { fail: "You don't have access to this endpoint.", status: 403 } });
    },
  },
];
