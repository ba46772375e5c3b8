import { route } from '#shared/http/routes.ts';
import { paging } from '#shared/http/parameters.ts';
import { PAIRS_PAGE } from '#shared/similarity/limits.ts';

export const definition = route({
  name: 'similarity-run',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/similarity/{run_id}',
  access: 'course:instructor',
  summary:
    "A similarity run of the gradeable: queued, running (with how many submissions are fingerprinted so far), failed (with why) or done, then its pairs most similar first, paged with page_size and cursor: each pair's two students (or teams) and versions, similarity (0–1), longest_fragment and total_overlap in tokens, and a reviewer's decision if any. A similarity is evidence to look at, not a verdict.",
  data: { summaries: ['BatchGetItem', 'Query'] },
  input: () => ({ query: { ...paging('Pairs', PAIRS_PAGE) } }),
});
