/** TA grading's fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const notTaGraded = /* @__PURE__ */ failure('invalid', 'This gradeable is not graded by TAs (ta_grading is false).');
export const noStudent = /* @__PURE__ */ failure('not-found', 'No student {user_id} in this course.', { user_id: ECHOED_LENGTH });
export const notYourSection = /* @__PURE__ */ failure('forbidden', 'You do not grade section {section}.');
export const gradingNotStarted = /* @__PURE__ */ failure('invalid', 'Grading has not started: it opens at {grade_start_date}.');
export const componentMissing = /* @__PURE__ */ failure('invalid', 'The field component_id is required.');
export const noComponent = /* @__PURE__ */ failure('invalid', 'This gradeable has no rubric component {component_id}.');
export const noMark = /* @__PURE__ */ failure('invalid', 'Rubric component {component_id} has no mark {mark_id}.');
export const markTwice = /* @__PURE__ */ failure('invalid', 'Mark {mark_id} is listed twice.');
export const customPointsBeyondSpan = /* @__PURE__ */ failure(
  'invalid',
  'custom_points must lie between {-span} and {span} (the span of rubric component {component_id}’s clamps).',
);
export const gradeChanged = /* @__PURE__ */ failure(
  'conflict',
  'The grade changed since revision {revision}: it is at revision {current}. Reload it and grade again.',
);
export const gradeRace = /* @__PURE__ */ failure(
  'conflict',
  'Another grader changed this grade at the same moment. Reload it and grade again.',
);
/** A first grade whose gradeable was changed (its type, version control or teams) while it was saved. */
export const gradeableChangedWhileGrading = /* @__PURE__ */ failure(
  'conflict',
  'The gradeable was changed while this grade was saved (its type or teams may differ now): nothing was saved. Reload it and grade again.',
);
