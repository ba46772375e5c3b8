/** What `change-inquiry-status` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  badStatus,
  courseArchivedForInquiries,
  gradersResolve,
  gradesNotReleased,
  inquiriesClosed,
  inquiriesNotOpen,
  inquiryChanged,
  inquiryNotFound,
  inquiryOpenAlready,
  inquiryRace,
  noInquiries,
  statusAlready,
  statusMissing,
} from '#shared/inquiries/failures.ts';
import { notYourSection } from '#shared/tagrading/failures.ts';

export const contract: RouteContract = {
  tag: 'Inquiries',
  data: components.Inquiry,
  fails: [
    fail(inquiryNotFound),
    fail(notYourSection),
    fail(statusMissing),
    fail(badStatus),
    fail(inquiryChanged),
    fail(statusAlready),
    fail(gradersResolve),
    fail(courseArchivedForInquiries),
    fail(noInquiries),
    fail(gradesNotReleased),
    fail(inquiriesNotOpen),
    fail(inquiriesClosed),
    fail(inquiryRace),
    fail(inquiryOpenAlready),
  ],
};
