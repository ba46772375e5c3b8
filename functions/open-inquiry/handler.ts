import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { newInquiryReads, openGradeInquiry } from '#shared/inquiries/inquiries.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params, userId }) => newInquiryReads(courseGradeable(params), userId),
  malformed: { gradeable_id: () => gradeableNotFound() },
  handle: ({ course, enrollment, items, body }) => openGradeInquiry(course, enrollment, items, body),
});
