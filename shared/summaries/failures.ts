/** Grade summaries' fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const noSummary = failure('not-found', 'No grade summary for {user_id} yet.');
export const summariesRegenerated = failure(
  'conflict',
  'The summaries were generated again since this cursor was given out: start again without a cursor.',
);
export const summariesJobNotFound = failure('not-found', 'No summaries job {job_id} in this course.');
