/** Grade summaries' fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const noSummary = failure('not-found', 'No grade summary for {user_id} yet.');
