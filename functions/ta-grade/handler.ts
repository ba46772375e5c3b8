import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { gradeWithHistory, gradingReads, ownGradeHistory } from '#shared/tagrading/grading.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { noStudent } from '#shared/tagrading/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => gradingReads(courseGradeable(params), params.user_id),
  alongside: ({ params }) => ownGradeHistory(courseGradeable(params), params.user_id),
  malformed: { gradeable_id: () => gradeableNotFound(), user_id: (userId) => noStudent({ user_id: userId }) },
  handle: ({ course, enrollment, items, params, alongside }) => gradeWithHistory(course, enrollment, params.user_id, items, alongside),
});
