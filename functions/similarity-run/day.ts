/** The deployed day's steps of `similarity-run` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, failures, FILES, GRADEABLE, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

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
  {
    title:
      "the git gradeable's similarity run, until it is done: the summaries worker checked each version's recorded commit out (its bundle's git client and checkout process, through the git host guard) and compared them, skipping none",
    phase: 'similarity read',
    timeoutMs: 120_000,
    run: async () => {
      const runId = handedOn.repositorySimilarityRun;
      if (!runId) return;
      const path = `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/similarity/${runId}`;
      const deadline = Date.now() + 90_000;
      let data: { status?: string; submissions?: number; skipped?: number; skipped_versions?: unknown[] } | undefined;
      while (failures.length === 0) {
        data = (await call('GET', path, { as: 'prof' })).json?.data;
        if (data?.status === 'done' || data?.status === 'failed' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      if (data?.status !== 'done' || (data.submissions ?? 0) < 2 || data.skipped !== 0)
        fail('similarity run of git versions', `not done comparing every version: ${JSON.stringify(data).slice(0, 800)}`);
    },
  },
];
