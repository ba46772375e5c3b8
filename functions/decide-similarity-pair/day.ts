/** The deployed day's steps of `decide-similarity-pair` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, FILES, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor confirms the pair at the revision read; a second decision from the same revision is refused',
    phase: 'similarity decided',
    run: async () => {
      const { similarityRun: runId, similarityPair: pairId } = handedOn;
      if (!runId || !pairId) return;
      const path = `/api/${TERM}/${COURSE}/gradeable/${FILES}/similarity/${runId}/pairs/${pairId}`;
      await call('PATCH', path, { as: 'prof', json: { decision: 'confirmed', note: 'Handed in twice.', revision: 0 } });
      await call('PATCH', path, {
        as: 'prof',
        json: { decision: 'dismissed', revision: 0 },
        expect: { fail: 'The pair changed since revision 0: it is at revision 1. Reload it and decide again.', status: 409 },
      });
    },
  },
];
