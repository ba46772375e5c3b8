import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { wholeOrPaged } from '#shared/http/paging.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { hiddenTestCasesShown, readableTarget, submissionReads, submissionToShow } from '#shared/submissions/reading.ts';
import { attempts, attemptsOrder } from '#shared/submissions/submission.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { gradeable_id: () => gradeableNotFound() },
  reads: ({ params, query, userId }) => submissionReads(courseGradeable(params), userId, query.user_id),
  handle: async ({ caller, course, enrollment, query, items, url }) => {
    // A gradeable the caller may not see yet (students: before submission opens) does not exist for them.
    if (!items.gradeable || !isVisible(items.gradeable, enrollment, new Date())) throw gradeableNotFound();
    readableTarget(caller, enrollment, query.user_id, items.target);
    const hidden = hiddenTestCasesShown(enrollment, items.gradeable, new Date());
    return wholeOrPaged(
      { url, query },
      attempts(await submissionToShow(items.gradeable, items, course), items.gradeable, hidden),
      attemptsOrder,
    );
  },
});
