import { route } from '#shared/http/routes.ts';
import { MAX_SHOWN_LINES } from '#shared/similarity/limits.ts';

export const definition = route({
  name: 'similarity-pair',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/similarity/{run_id}/pairs/{pair_id}',
  access: 'course:instructor',
  summary: `One pair of a similarity run, with the fragments both sides share, file by file: on each side the file, its first and last line, its tokens and the lines' text (at most ${MAX_SHOWN_LINES}, from the stored files or a repository version's kept texts; null once they are gone), so a reviewer reads the passages side by side; and the decision if any.`,
  data: { summaries: ['BatchGetItem'] },
  // An uploaded version's stored files; a repository version's texts, kept beside its fingerprints.
  objects: { versions: ['GetObject', 'ListBucket'], fingerprints: ['GetObject', 'ListBucket'] },
});
