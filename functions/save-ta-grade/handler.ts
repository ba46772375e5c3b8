import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { gradeComponent, gradeView, gradingReads, gradingTarget } from '#shared/tagrading/grading.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { noStudent } from '#shared/tagrading/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => gradingReads(courseGradeable(params), params.user_id),
  malformed: { gradeable_id: () => gradeableNotFound(), user_id: (userId) => noStudent({ user_id: userId }) },
  handle: async ({ caller, course, enrollment, items, params, body }) => {
    const target = await gradingTarget(course, enrollment, params.user_id, items);
    return gradeView(await gradeComponent(target, caller.userId, body, course), params.user_id);
  },
});
