/** Grade summaries' fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const noSummary = /* @__PURE__ */ failure('not-found', 'No grade summary for {user_id} yet.', { user_id: ECHOED_LENGTH });
export const summariesRegenerated = /* @__PURE__ */ failure(
  'conflict',
  'The summaries were generated again since this cursor was given out: start again without a cursor.',
);
export const summariesJobNotFound = /* @__PURE__ */ failure('not-found', 'No summaries job {job_id} in this course.', {
  job_id: ECHOED_LENGTH,
});
