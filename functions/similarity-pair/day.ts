/** The deployed day's steps of `similarity-pair` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, FILES, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the instructor reads the most similar pair's fragments, the lines of both sides read from the submissions bucket",
    phase: 'similarity reviewed',
    run: async () => {
      const { similarityRun: runId, similarityPair: pairId } = handedOn;
      if (!runId || !pairId) return;
      const answer = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${FILES}/similarity/${runId}/pairs/${pairId}`, { as: 'prof' });
      const fragments = (answer.json?.data as { fragments?: { left: { lines: string[] | null }; right: { lines: string[] | null } }[] })
        ?.fragments;
      if (!fragments?.length || !fragments[0]!.left.lines?.some((line) => line.includes('def mean')))
        fail('similarity pair', answer.text.slice(0, 500));
    },
  },
];
