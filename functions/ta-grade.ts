import { auditTrail } from '#shared/data/grades.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { gradeableKey } from '#shared/http/reads.ts';
import { gradeView, gradingReads, gradingTarget } from '#shared/tagrading/grading.ts';

export const handler = endpoint('ta-grade', {
  reads: ({ params }) => gradingReads(gradeableKey(params), params.user_id),
  handle: async ({ course, enrollment, items, params }) => {
    const target = await gradingTarget(course, enrollment, params.user_id, items);
    return { ...gradeView(target, params.user_id), history: await auditTrail(target.owner) };
  },
});
