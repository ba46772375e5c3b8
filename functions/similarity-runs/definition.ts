import { route } from '#shared/http/routes.ts';
import { paging } from '#shared/http/parameters.ts';
import { RUNS_PAGE } from '#shared/similarity/limits.ts';

export const definition = route({
  name: 'similarity-runs',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/similarity',
  access: 'course:instructor',
  summary:
    "The gradeable's similarity runs: newest first, paged with page_size and cursor; each run's status and progress, who asked for it and when, when it finished, its options (language, compare_with, min_match_tokens, starter files), how many submissions it compared and skipped and how many pairs it kept. GET …/similarity/{run_id} reads one with its pairs and skipped versions.",
  // The gradeable with the token check and its runs' listing entries alongside it, then the page's runs.
  data: { gradeables: ['BatchGetItem'], summaries: ['Query', 'BatchGetItem'] },
  input: () => ({ query: { ...paging('Runs', RUNS_PAGE) } }),
});
