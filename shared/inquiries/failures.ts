/** Grade inquiries' fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const inquiryNotFound = /* @__PURE__ */ failure('not-found', 'Grade inquiry not found.');
export const noInquiries = /* @__PURE__ */ failure('invalid', 'This gradeable takes no grade inquiries (grade_inquiries is false).');
export const gradesNotReleased = /* @__PURE__ */ failure(
  'invalid',
  'Grades of this gradeable are not released yet: grade inquiries open once they are, at {grade_inquiry_start_date}.',
);
export const inquiriesNotOpen = /* @__PURE__ */ failure('invalid', 'Grade inquiries on this gradeable open at {grade_inquiry_start_date}.');
export const inquiriesClosed = /* @__PURE__ */ failure('invalid', 'Grade inquiries on this gradeable closed at {grade_inquiry_due_date}.');
export const courseArchivedForInquiries = /* @__PURE__ */ failure(
  'forbidden',
  'This course is archived and takes no new or reopened grade inquiries. Its instructors may allow them with the course setting archived_accepts_submissions.',
);
export const studentsOnly = /* @__PURE__ */ failure('forbidden', 'Only a student opens a grade inquiry, about their own grade.');
export const wholeGradeOnly = /* @__PURE__ */ failure(
  'invalid',
  'This gradeable takes grade inquiries about the whole grade, not per component (grade_inquiry_per_component_allowed is false): leave out component_id.',
);
export const componentRequired = /* @__PURE__ */ failure(
  'invalid',
  'This gradeable takes grade inquiries per rubric component: the field component_id is required.',
);
export const inquiryOpenAlready = /* @__PURE__ */ failure('conflict', 'A grade inquiry about {about} is open already: post to it instead.');
export const contentMissing = /* @__PURE__ */ failure('invalid', 'The field content is required.');
export const statusMissing = /* @__PURE__ */ failure('invalid', 'The field status is required: resolved or open.');
export const badStatus = /* @__PURE__ */ failure('invalid', 'The field status must be resolved or open.');
export const badStatusFilter = /* @__PURE__ */ failure('invalid', 'The status must be open, resolved or all.');
export const inquiryResolved = /* @__PURE__ */ failure('conflict', 'The grade inquiry is resolved: reopen it to post.');
export const tooManyPosts = /* @__PURE__ */ failure('invalid', 'The grade inquiry holds at most {max} posts.');
export const statusAlready = /* @__PURE__ */ failure('conflict', 'The grade inquiry is {status} already.');
export const gradersResolve = /* @__PURE__ */ failure('forbidden', 'Only graders resolve a grade inquiry.');
export const inquiryChanged = /* @__PURE__ */ failure(
  'conflict',
  'The grade inquiry changed since revision {revision}: it is at revision {current}. Reload it and try again.',
);
export const inquiryRace = /* @__PURE__ */ failure(
  'conflict',
  'The grade inquiry changed at the same moment (a post, or another change of its status): nothing was changed. Reload it and try again.',
);
export const contentControlCharacter = /* @__PURE__ */ failure(
  'invalid',
  'The field content must be text: no control characters but tabs and line breaks.',
);
