import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { inquiryNotFound } from '#shared/inquiries/failures.ts';
import { inquiryReads, postToInquiry } from '#shared/inquiries/inquiries.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params, userId }) => inquiryReads(courseGradeable(params), params.inquiry_id, userId),
  malformed: { gradeable_id: () => inquiryNotFound(), inquiry_id: () => inquiryNotFound() },
  handle: ({ course, enrollment, items, body }) => postToInquiry(course, enrollment, items, body),
});
