import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { readableTarget, submissionReads } from '#shared/submissions/reading.ts';
import { gradeableValues } from '#shared/submissions/submission.ts';

export const handler = endpoint('gradeable-values', {
  reads: submissionReads,
  handle: ({ caller, enrollment, query, items }) => {
    if (!items.gradeable) throw gradeableNotFound();
    readableTarget(caller, enrollment, query.user_id, items.target);
    return gradeableValues(items.submission, items.queue?.head ?? 0, { showHidden: (enrollment?.group ?? 4) < 4 });
  },
});
