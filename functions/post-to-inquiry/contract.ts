/** What `post-to-inquiry` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  contentControlCharacter,
  contentMissing,
  inquiryNotFound,
  inquiryRace,
  inquiryResolved,
  tooManyPosts,
} from '#shared/inquiries/failures.ts';
import { notYourSection } from '#shared/tagrading/failures.ts';

export const contract: RouteContract = {
  tag: 'Inquiries',
  data: components.Inquiry,
  fails: [
    fail(inquiryNotFound),
    fail(notYourSection),
    fail(contentMissing),
    fail(inquiryResolved),
    fail(tooManyPosts),
    fail(contentControlCharacter),
    fail(inquiryRace),
  ],
};
