import { SIMILARITY_RUN_KIND, unfinishedSimilarityRuns, type UnfinishedSimilarityRun } from '#shared/data/similarity-runs.ts';
import { sendSummariesJob } from '#shared/summaries/queue.ts';
import type { CourseJobKind } from '#shared/summaries/sweep.ts';

/** Why a run failed whose every delivery was claimed and stopped. */
export const RUN_ABANDONED = 'The run stopped before it ended, on every try. Ask for a new one.';

/** The sweep's view of similarity runs (shared/summaries/sweep.ts): their index, their message, why one failed. */
export const similarityRunSweep: CourseJobKind<UnfinishedSimilarityRun> = {
  kind: SIMILARITY_RUN_KIND,
  unfinished: unfinishedSimilarityRuns,
  send: ({ term, course, runId }) => sendSummariesJob({ kind: 'similarity-run', term, course, runId }),
  reasons: {
    abandoned: RUN_ABANDONED,
    neverStarted: 'The run never started: its message was lost on every try. Ask for a new one.',
  },
};
