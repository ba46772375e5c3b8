/** The deployed day's steps of `similarity-run` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, failures, FILES, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title:
      "the similarity run, until it is done: the worker's bundle parsed the Python with its own grammars and ranks the two copies first; the grader cannot read it",
    phase: 'similarity read',
    timeoutMs: 120_000,
    run: async () => {
      const runId = handedOn.similarityRun;
      if (!runId) return;
      const path = `/api/${TERM}/${COURSE}/gradeable/${FILES}/similarity/${runId}`;
      const deadline = Date.now() + 90_000;
      let data: { status?: string; pairs?: { pair_id: string; similarity: number }[] } | undefined;
      while (failures.length === 0) {
        data = (await call('GET', path, { as: 'prof' })).json?.data;
        if (data?.status === 'done' || data?.status === 'failed' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const first = data?.pairs?.[0];
      if (data?.status !== 'done' || first?.similarity !== 1)
        return fail('similarity run', `not done with the copies first: ${JSON.stringify(data).slice(0, 500)}`);
      handedOn.similarityPair = first.pair_id;
      await call('GET', path, { as: 'ta', expect: { fail: "You don't have access to this endpoint.", status: 403 } });
    },
  },
];
