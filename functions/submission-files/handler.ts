import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { readableTarget, submissionReads, submissionToShow } from '#shared/submissions/reading.ts';
import { versionFiles } from '#shared/submissions/submit-files.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { gradeable_id: () => gradeableNotFound() },
  reads: ({ params, query, userId }) => {
    // Everything `attempts` reads but the queue: a version's files do not depend on it.
    const { queue: _queue, ...reads } = submissionReads(courseGradeable(params), userId, query.user_id);
    return reads;
  },
  handle: async ({ caller, course, enrollment, query, items }) => {
    if (!items.gradeable || !isVisible(items.gradeable, enrollment, new Date())) throw gradeableNotFound();
    readableTarget(caller, enrollment, query.user_id, items.target);
    return versionFiles(items.gradeable, await submissionToShow(items.gradeable, items, course), query.version);
  },
});
