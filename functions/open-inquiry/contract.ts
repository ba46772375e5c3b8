/** What `open-inquiry` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { notOnTeam } from '#shared/courses/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import {
  componentRequired,
  courseArchivedForInquiries,
  contentControlCharacter,
  contentMissing,
  gradesNotReleased,
  inquiriesClosed,
  inquiriesNotOpen,
  inquiryOpenAlready,
  noInquiries,
  studentsOnly,
  wholeGradeOnly,
} from '#shared/inquiries/failures.ts';
import { noComponent } from '#shared/tagrading/failures.ts';

export const contract: RouteContract = {
  tag: 'Inquiries',
  data: components.Inquiry,
  fails: [
    gradeableNotFound,
    fail(studentsOnly),
    fail(courseArchivedForInquiries),
    fail(noInquiries),
    fail(gradesNotReleased),
    fail(inquiriesNotOpen),
    fail(inquiriesClosed),
    fail(contentMissing),
    fail(wholeGradeOnly),
    fail(componentRequired),
    fail(noComponent),
    fail(contentControlCharacter),
    fail(notOnTeam),
    fail(inquiryOpenAlready),
  ],
};
