/** Grade summaries' fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const noSummary = /* @__PURE__ */ failure('not-found', 'No grade summary for {user_id} yet.');
export const summariesRegenerated = /* @__PURE__ */ failure(
  'conflict',
  'The summaries were generated again since this cursor was given out: start again without a cursor.',
);
export const summariesJobNotFound = /* @__PURE__ */ failure('not-found', 'No summaries job {job_id} in this course.');
