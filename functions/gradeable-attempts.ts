import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { readableTarget, submissionReads } from '#shared/submissions/reading.ts';
import { attempts } from '#shared/submissions/submission.ts';

export const handler = endpoint('gradeable-attempts', {
  reads: submissionReads,
  handle: ({ caller, enrollment, query, items }) => {
    if (!items.gradeable) throw gradeableNotFound();
    readableTarget(caller, enrollment, query.user_id, items.target);
    return attempts(items.submission);
  },
});
