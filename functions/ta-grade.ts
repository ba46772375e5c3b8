import { endpoint } from '#shared/http/endpoint.ts';
import { gradeableKey } from '#shared/http/reads.ts';
import { gradeWithHistory, gradingReads, ownGradeHistory } from '#shared/tagrading/grading.ts';

export const handler = endpoint('ta-grade', {
  reads: ({ params }) => gradingReads(gradeableKey(params), params.user_id),
  alongside: ({ params }) => ownGradeHistory(gradeableKey(params), params.user_id),
  handle: ({ course, enrollment, items, params, alongside }) => gradeWithHistory(course, enrollment, params.user_id, items, alongside),
});
